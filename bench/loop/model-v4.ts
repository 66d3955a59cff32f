import type {
  LanguageModelV4,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import type { Script } from './script.ts';

const USAGE: LanguageModelV4Usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};
const TOOL_CALLS: LanguageModelV4FinishReason = { unified: 'tool-calls', raw: undefined };
const STOP: LanguageModelV4FinishReason = { unified: 'stop', raw: undefined };

/**
 * The one `LanguageModelV4` that agency, the AI SDK and Mastra all run on. It ignores the prompt: each call takes the
 * script's next turn and returns it, so its cost per call is a few small allocations whatever the history holds.
 * `doStream` serves the same turn as stream parts, for frameworks that always stream.
 */
export function createLoopModel(script: Script): LanguageModelV4 {
  const content = (): { content: LanguageModelV4Content[]; finishReason: LanguageModelV4FinishReason } => {
    const turn = script.next();
    return turn.kind === 'tool'
      ? {
          content: [{ type: 'tool-call', toolCallId: turn.callId, toolName: 'echo', input: turn.args }],
          finishReason: TOOL_CALLS,
        }
      : { content: [{ type: 'text', text: turn.text }], finishReason: STOP };
  };
  return {
    specificationVersion: 'v4',
    provider: 'bench',
    modelId: 'loop',
    supportedUrls: {},
    doGenerate() {
      return Promise.resolve({ ...content(), usage: USAGE, warnings: [] });
    },
    doStream() {
      const { content: parts, finishReason } = content();
      const chunks: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of parts) {
        if (part.type === 'text') {
          chunks.push({ type: 'text-start', id: '0' }, { type: 'text-delta', id: '0', delta: part.text });
          chunks.push({ type: 'text-end', id: '0' });
        } else if (part.type === 'tool-call') {
          chunks.push(part);
        }
      }
      chunks.push({ type: 'finish', usage: USAGE, finishReason });
      let index = 0;
      const stream = new ReadableStream<LanguageModelV4StreamPart>({
        pull(controller) {
          const chunk = chunks[index++];
          if (chunk) controller.enqueue(chunk);
          else controller.close();
        },
      });
      return Promise.resolve({ stream });
    },
  };
}
