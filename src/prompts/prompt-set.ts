import { AgencyError } from '../core/errors.ts';
import { notFound } from './create-prompt-store.ts';
import { checkPromptId, checkPromptVersion, promptDigest } from './prompt-checks.ts';
import type { PromptStore, PromptTemplate, PromptVars, RenderedPrompt } from './prompt-store.ts';
import { promptRef } from './prompt-store.ts';
import { renderPrompt } from './render-prompt.ts';

/** Versions to use instead of the latest, by prompt id: `{ 'runner.plan': 3 }`. */
export type PromptPins = Readonly<Record<string, number>>;

/**
 * Templates resolved once, from one store, and rendered synchronously from then on: what a run or an agent holds,
 * so every call renders the same version, byte for byte, whatever is put to the store meanwhile.
 */
export type PromptSet = {
  /** The resolved versions, by id. */
  readonly templates: ReadonlyMap<string, PromptTemplate>;
  /**
   * Renders a resolved template.
   * @throws AgencyError `prompt_not_found` for an id that was not resolved; see `renderPrompt`.
   */
  render(id: string, vars?: PromptVars): RenderedPrompt;
};

/** What {@link resolvePromptSet} resolves. */
export type ResolvePromptSetOptions = {
  /** The ids to resolve; every pinned id is resolved too. */
  ids: readonly string[];
  /** @default {} (the latest version of every id) */
  pins?: PromptPins;
  /**
   * The variables the caller gives each id's render. A version that uses another is refused now rather than at its
   * first render.
   */
  provides?: Readonly<Record<string, readonly string[]>>;
  /** Says where pins come from in errors, e.g. `--prompt`. @default 'the pins' */
  pinnedBy?: string;
};

/**
 * Resolves the ids to one version each: the pinned one, or the latest.
 * @throws AgencyError `prompt_not_found` naming the id and the versions there are; `prompt_invalid` for a version
 * that uses a variable the caller does not give, or (from a layered store) a version number held twice.
 */
export async function resolvePromptSet(
  store: PromptStore,
  { ids, pins = {}, provides = {}, pinnedBy = 'the pins' }: ResolvePromptSetOptions,
): Promise<PromptSet> {
  const templates = new Map<string, PromptTemplate>();
  for (const id of new Set([...ids, ...Object.keys(pins)])) {
    checkPromptId(id, `${pinnedBy}: prompt id`);
    const version = pins[id] === undefined ? undefined : checkPromptVersion(pins[id], `${pinnedBy}: ${id}`);
    // Every version is read, not only the one used: a layered store refuses a number held twice with different
    // texts, even one this run would not use (a store numbered from 1 over the built-in prompts).
    await store.list({ id });
    const template = await store.get(id, version);
    if (!template) {
      const missing = notFound(id, version, await store.list({ id }));
      throw new AgencyError(
        'prompt_not_found',
        version === undefined ? missing.message : `${missing.message}; ${pinnedBy} name ${id}@${version}`,
        missing.details ? { details: missing.details } : {},
      );
    }
    const given = provides[id];
    const extra = given ? template.requiredVars.filter((name) => !given.includes(name)) : [];
    if (extra.length > 0) {
      throw new AgencyError(
        'prompt_invalid',
        `Prompt ${promptRef(template)} uses ${extra.map((name) => `"${name}"`).join(', ')}, which agency does not give ` +
          `it (it gives: ${given?.join(', ') || 'no variables'}); put a version that uses only those`,
        { details: { id, version: template.version, variables: extra } },
      );
    }
    templates.set(id, template);
  }
  return promptSetOf(templates);
}

/** A prompt set over templates already resolved. */
export function promptSetOf(templates: ReadonlyMap<string, PromptTemplate>): PromptSet {
  return {
    templates,
    render(id, vars = {}) {
      const template = templates.get(id);
      if (!template) {
        throw new AgencyError('prompt_not_found', `Prompt "${id}" was not resolved for this run`, { details: { id } });
      }
      return renderPrompt(template, vars);
    },
  };
}

/** The resolved versions as a journal records them: id, version and content digest. */
export function describePromptSet(set: PromptSet): Array<{ id: string; version: number; sha256: string }> {
  return [...set.templates.values()].map((template) => ({
    id: template.id,
    version: template.version,
    sha256: promptDigest(template),
  }));
}
