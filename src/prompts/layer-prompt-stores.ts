import { AgencyError } from '../core/errors.ts';
import { notFound } from './create-prompt-store.ts';
import { promptDigest } from './prompt-checks.ts';
import { type PromptStore, type PromptTemplate, promptRef } from './prompt-store.ts';
import { renderPrompt } from './render-prompt.ts';

/**
 * One store over another, as one set of versions: an id's versions are those of both, and its latest is the highest
 * of either. A version number names one text, so a version held by both with different contents is refused rather
 * than served from one of them. `put` goes to `top` (give `top` the versions below with its `after` option, so its
 * versions are numbered after them); `audit` is both trails by time. The runner lays an operator's store over the
 * built-in prompts this way.
 *
 * @example
 * const prompts = layerPromptStores(createFilePromptStore({ dir: './prompts', after: BUILTIN_PROMPTS }), builtinPromptStore());
 */
export function layerPromptStores(top: PromptStore, bottom: PromptStore): PromptStore {
  const get = async (id: string, version?: number) => {
    const [above, below] = await Promise.all([top.get(id, version), bottom.get(id, version)]);
    if (above && below) {
      if (above.version === below.version) return sameVersion(above, below);
      return above.version > below.version ? above : below;
    }
    return above ?? below;
  };
  const versionsOf = async (id: string) => {
    const byVersion = new Map<number, PromptTemplate>();
    for (const template of await bottom.list({ id })) byVersion.set(template.version, template);
    for (const template of await top.list({ id })) {
      const held = byVersion.get(template.version);
      byVersion.set(template.version, held ? sameVersion(template, held) : template);
    }
    return [...byVersion.values()].sort((a, b) => a.version - b.version);
  };
  return {
    get,
    async render(id, vars, version) {
      const template = await get(id, version);
      if (!template) throw notFound(id, version, await versionsOf(id));
      return renderPrompt(template, vars);
    },
    put: (draft) => top.put(draft),
    async list(filter = {}) {
      if (filter.id !== undefined) {
        await top.list(filter); // checks the id
        return versionsOf(filter.id);
      }
      const ids = new Set([...(await bottom.list()), ...(await top.list())].map((template) => template.id));
      const latest = await Promise.all([...ids].sort().map((id) => get(id)));
      return latest.filter((template): template is PromptTemplate => template !== undefined);
    },
    validate: (draft) => top.validate(draft),
    async audit(filter) {
      const [above, below] = await Promise.all([top.audit(filter), bottom.audit(filter)]);
      return [...below, ...above].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    },
  };
}

function sameVersion(above: PromptTemplate, below: PromptTemplate): PromptTemplate {
  if (promptDigest(above) === promptDigest(below)) return above;
  throw new AgencyError(
    'prompt_invalid',
    `Prompt ${promptRef(above)} is held twice with different contents (by ${above.createdBy} and by ` +
      `${below.createdBy}); a version names one text: renumber the later one after the highest version of ` +
      `"${above.id}", or put it as a new version`,
    { details: { id: above.id, version: above.version } },
  );
}
