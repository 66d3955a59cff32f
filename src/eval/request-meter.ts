import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';

/** One model call as an eval saw it: what was asked, the text answered, and the tokens the provider counted. */
export type MeteredCall = {
  prompt: LanguageModelV4CallOptions['prompt'];
  tools: LanguageModelV4CallOptions['tools'];
  /** The text parts of the answer, in order. */
  answer: string;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
};

/**
 * Wraps a model so that every call it answers is kept for the framework-overhead measure. The calls are passed
 * through unchanged, streamed or not; a call that fails is kept with no answer and no token counts.
 */
export function meterRequests(model: LanguageModelV4): { model: LanguageModelV4; calls: MeteredCall[] } {
  const calls: MeteredCall[] = [];
  const begin = (options: LanguageModelV4CallOptions): MeteredCall => {
    const call: MeteredCall = {
      prompt: options.prompt,
      tools: options.tools,
      answer: '',
      inputTokens: undefined,
      outputTokens: undefined,
    };
    calls.push(call);
    return call;
  };
  const count = (call: MeteredCall, usage: LanguageModelV4Usage) => {
    call.inputTokens = usage.inputTokens.total;
    call.outputTokens = usage.outputTokens.total;
  };
  const wrapped: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: model.provider,
    modelId: model.modelId,
    supportedUrls: model.supportedUrls,
    doGenerate: async (options) => {
      const call = begin(options);
      const result = await model.doGenerate(options);
      call.answer = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
      count(call, result.usage);
      return result;
    },
    doStream: async (options) => {
      const call = begin(options);
      const result = await model.doStream(options);
      const observe = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
        transform(part, controller) {
          if (part.type === 'text-delta') call.answer += part.delta;
          if (part.type === 'finish') count(call, part.usage);
          controller.enqueue(part);
        },
      });
      return { ...result, stream: result.stream.pipeThrough(observe) };
    },
  };
  return { model: wrapped, calls };
}
