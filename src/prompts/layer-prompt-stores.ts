import { notFound } from './create-prompt-store.ts';
import type { PromptStore, PromptTemplate } from './prompt-store.ts';
import { renderPrompt } from './render-prompt.ts';

/**
 * One store over another: an id that `top` holds is served from `top` alone (its versions replace the ones below,
 * so `runner.plan@2` is never half one store and half the other), any other id from `bottom`. `put` goes to `top`;
 * `list` merges both, `top` first; `audit` is both trails by time. The runner lays an operator's store over the
 * built-in prompts this way.
 *
 * @example
 * const prompts = layerPromptStores(createFilePromptStore({ dir: './prompts' }), builtinPromptStore());
 */
export function layerPromptStores(top: PromptStore, bottom: PromptStore): PromptStore {
  const owner = async (id: string) => ((await top.get(id)) === undefined ? bottom : top);
  const get = async (id: string, version?: number) => (await owner(id)).get(id, version);
  return {
    get,
    async render(id, vars, version) {
      const template = await get(id, version);
      if (!template) throw notFound(id, version, await (await owner(id)).list({ id }));
      return renderPrompt(template, vars);
    },
    put: (draft) => top.put(draft),
    async list(filter = {}) {
      if (filter.id !== undefined) return (await owner(filter.id)).list(filter);
      const byId = new Map<string, PromptTemplate>();
      for (const template of await bottom.list()) byId.set(template.id, template);
      for (const template of await top.list()) byId.set(template.id, template);
      return [...byId.keys()].sort().map((id) => byId.get(id) as PromptTemplate);
    },
    validate: (draft) => top.validate(draft),
    async audit(filter) {
      const [above, below] = await Promise.all([top.audit(filter), bottom.audit(filter)]);
      return [...below, ...above].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    },
  };
}
