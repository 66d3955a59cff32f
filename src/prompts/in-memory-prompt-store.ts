import { AgencyError } from '../core/errors.ts';
import { type PromptRecords, type PromptStoreDeps, createPromptStore } from './create-prompt-store.ts';
import { storedTemplateProblems } from './prompt-checks.ts';
import { type PromptAuditEntry, type PromptStore, type PromptTemplate, promptRef } from './prompt-store.ts';

/** Options for {@link createInMemoryPromptStore}. */
export type InMemoryPromptStoreOptions = PromptStoreDeps & {
  /**
   * Versions the store starts with, kept as they are (their audit is wherever they came from). Each is checked.
   * @default []
   */
  templates?: readonly PromptTemplate[];
};

/**
 * A `PromptStore` in process memory: for tests, for a process's own templates, and under the built-in prompts.
 * @throws AgencyError `prompt_invalid` for a malformed or repeated starting version.
 * @example
 * const store = createInMemoryPromptStore();
 * await store.put({ id: 'runner.persona', text: 'You are terse.', createdBy: 'ops' });
 */
export function createInMemoryPromptStore({ templates = [], ...deps }: InMemoryPromptStoreOptions = {}): PromptStore {
  const versions = new Map<string, PromptTemplate[]>();
  const trail: PromptAuditEntry[] = [];
  for (const template of templates) {
    const problems = storedTemplateProblems(template);
    const held = versions.get(template.id) ?? [];
    if (held.some((other) => other.version === template.version)) problems.push('version: given twice');
    if (problems.length > 0) {
      throw new AgencyError('prompt_invalid', `Prompt ${promptRef(template)}: ${problems.join('; ')}`, {
        details: { id: template.id, version: template.version, errors: problems },
      });
    }
    versions.set(
      template.id,
      [...held, structuredClone(template)].sort((a, b) => a.version - b.version),
    );
  }
  const records: PromptRecords = {
    read: async (id, version) => {
      const held = versions.get(id);
      const found = version === undefined ? held?.at(-1) : held?.find((template) => template.version === version);
      return found && structuredClone(found);
    },
    list: async (id) =>
      structuredClone(
        id === undefined
          ? [...versions.keys()].sort().map((key) => versions.get(key)?.at(-1) as PromptTemplate)
          : (versions.get(id) ?? []),
      ),
    // Nothing awaits between reading the latest version and adding the next, so concurrent puts cannot collide.
    append: async (id, next) => {
      const held = versions.get(id) ?? [];
      const { template, audit } = next(held.at(-1));
      versions.set(id, [...held, structuredClone(template)]);
      trail.push(audit);
      return template;
    },
    audit: async (id) => structuredClone(trail.filter((entry) => id === undefined || entry.id === id)),
  };
  return createPromptStore(records, deps);
}
