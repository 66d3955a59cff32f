import type { SharedV4ProviderOptions } from '@ai-sdk/provider';

// The prompt templates a model call was built from travel with the call, under agency's own provider-options key:
// providers read only their own key and ignore it, the cassette recorder writes it beside the request, and replay
// explains a mismatch with it.

/** The provider-options key under which a call names its prompt templates. */
export const AGENCY_OPTIONS_KEY = 'agency';

/**
 * `providerOptions` with `prompts` (each `id@version`) added under `agency`, keeping every other key; the options as
 * they were when there are none.
 */
export function withPromptRefs(
  providerOptions: SharedV4ProviderOptions | undefined,
  prompts: readonly string[],
): SharedV4ProviderOptions | undefined {
  if (prompts.length === 0) return providerOptions;
  return { ...providerOptions, [AGENCY_OPTIONS_KEY]: { prompts: [...new Set(prompts)] } };
}

/** The prompt templates a call names, or undefined when it names none (or names them in another shape). */
export function promptRefsOf(providerOptions: unknown): string[] | undefined {
  if (typeof providerOptions !== 'object' || providerOptions === null) return undefined;
  const agency = (providerOptions as Record<string, unknown>)[AGENCY_OPTIONS_KEY];
  const prompts = typeof agency === 'object' && agency !== null ? (agency as { prompts?: unknown }).prompts : undefined;
  return Array.isArray(prompts) && prompts.every((ref) => typeof ref === 'string') ? [...prompts] : undefined;
}

/** The provider options without agency's key: undefined when nothing else is left. */
export function withoutPromptRefs(providerOptions: unknown): unknown {
  if (typeof providerOptions !== 'object' || providerOptions === null || !(AGENCY_OPTIONS_KEY in providerOptions))
    return providerOptions;
  const { [AGENCY_OPTIONS_KEY]: _dropped, ...rest } = providerOptions as Record<string, unknown>;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
