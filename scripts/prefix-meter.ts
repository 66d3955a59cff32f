// Measures how much of each model request repeats the previous one from its start: the bytes a provider's prompt
// cache can reuse (tool definitions, the system prompt, pinned memory, the task context, and any earlier turns kept
// as they were).
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';

/** Wraps a model and measures its requests' stable prefix. */
export function measurePrefix(model: LanguageModelV4) {
  let previous: string[] | undefined;
  let stable = 0;
  let total = 0;
  let calls = 0;
  let fixedPrefixChanges = 0;
  let previousFixed: string | undefined;
  const observe = (options: LanguageModelV4CallOptions) => {
    calls++;
    // Compared part by part: provider caches reuse a prefix that ends inside a message (Anthropic per block, OpenAI
    // per token), and a phase's ask shares its user message with the task context before it.
    const pieces = [
      JSON.stringify(options.tools ?? []),
      ...options.prompt.flatMap((message) =>
        typeof message.content === 'string'
          ? [JSON.stringify(message)]
          : message.content.map((part) => JSON.stringify({ role: message.role, part })),
      ),
    ];
    const size = pieces.reduce((sum, piece) => sum + Buffer.byteLength(piece), 0);
    let same = 0;
    if (previous) {
      for (let i = 0; i < pieces.length && pieces[i] === previous[i]; i++)
        same += Buffer.byteLength(pieces[i] as string);
    }
    const fixed = JSON.stringify([options.tools ?? [], options.prompt.filter((message) => message.role === 'system')]);
    if (previousFixed !== undefined && fixed !== previousFixed) fixedPrefixChanges++;
    previousFixed = fixed;
    if (previous) {
      stable += same;
      total += size;
    }
    previous = pieces;
  };
  const wrapped: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: (options) => {
      observe(options);
      return model.doGenerate(options);
    },
    doStream: (options) => {
      observe(options);
      return model.doStream(options);
    },
  };
  return {
    model: wrapped,
    calls: () => calls,
    /** The share of request bytes (after the first call) that repeat the previous request from its start. */
    summary: () =>
      `${calls} model calls; ${total === 0 ? 0 : ((stable / total) * 100).toFixed(1)}% of request bytes after the first call repeat ` +
      `the previous request from its start; the system prompt, pinned memory and tool definitions ` +
      `${fixedPrefixChanges === 0 ? 'were byte-identical in every call' : `changed ${fixedPrefixChanges} time(s)`}`,
  };
}
