import { BUILTIN_PROMPT_VARIABLES, sharedBuiltinPrompts } from '../prompts/builtin-prompts.ts';
import { layerPromptStores } from '../prompts/layer-prompt-stores.ts';
import { type PromptSet, resolvePromptSet } from '../prompts/prompt-set.ts';
import { promptRef } from '../prompts/prompt-store.ts';
import type { RunnerOptions } from './runner-options.ts';
import type { Session } from './session.ts';

// Resolved once per open run: every step renders the same versions, so the system prompt stays byte-stable (and
// cacheable by providers) whatever is put to the store while the run goes on.
const resolved = new WeakMap<Session, Promise<PromptSet>>();

/**
 * The prompt versions a run uses: `options.prompts` laid over agency's built-in prompts, each at the version
 * `options.promptVersions` pins or at its latest. A version that uses a variable agency does not give is refused
 * before the first model call.
 * @throws AgencyError `prompt_not_found` for a pinned version that does not exist, `prompt_invalid` as above.
 */
export function runPrompts(session: Session, options: RunnerOptions): Promise<PromptSet> {
  let set = resolved.get(session);
  if (!set) {
    const builtin = sharedBuiltinPrompts();
    const store = options.prompts ? layerPromptStores(options.prompts, builtin) : builtin;
    set = resolvePromptSet(store, {
      ids: Object.keys(BUILTIN_PROMPT_VARIABLES),
      pins: options.promptVersions ?? {},
      provides: BUILTIN_PROMPT_VARIABLES,
      pinnedBy: 'promptVersions (agency run --prompt)',
    });
    resolved.set(session, set);
  }
  return set;
}

/** The persona of a run and the template it came from: `options.persona` (no template) or `runner.persona`. */
export function personaOf(prompts: PromptSet, options: RunnerOptions): { text: string; refs: string[] } {
  if (options.persona !== undefined) return { text: options.persona, refs: [] };
  const rendered = prompts.render('runner.persona');
  return { text: rendered.text, refs: [rendered.ref] };
}

/** `id@version` of each resolved template, for the journal. */
export function refsOf(prompts: PromptSet, ids: readonly string[]): string[] {
  return ids.flatMap((id) => {
    const template = prompts.templates.get(id);
    return template ? [promptRef(template)] : [];
  });
}
