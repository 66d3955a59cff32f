import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4ResponseMetadata,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from '@ai-sdk/provider';
import { type Attributes, context, type Span, SpanKind, trace } from '@opentelemetry/api';
import { genAiMessages, genAiOutput, systemInstructions } from './genai-messages.ts';
import { metering, recordTokens } from './metrics.ts';
import { agencyTracer, capturesContent, contentAttribute, inSpan, markError, tracing } from './telemetry.ts';

type Request = Omit<LanguageModelV4CallOptions, 'abortSignal'>;

/** What a chat span records of an answer. */
type Answer = {
  model: LanguageModelV4;
  response?: LanguageModelV4ResponseMetadata | undefined;
  finishReason?: LanguageModelV4FinishReason | undefined;
  usage?: LanguageModelV4Usage | undefined;
  content?: LanguageModelV4Content[] | undefined;
};

/**
 * Runs a non-streaming model call, retries and fallbacks included, in a `chat <model>` span (GenAI inference span),
 * and records its tokens in `gen_ai.client.token.usage`.
 */
export function traceGenerate<
  T extends {
    model: LanguageModelV4;
    result: {
      response?: LanguageModelV4ResponseMetadata | undefined;
      finishReason: LanguageModelV4FinishReason;
      usage: LanguageModelV4Usage;
      content: LanguageModelV4Content[];
    };
  },
>(request: Request, requested: LanguageModelV4 | undefined, call: () => Promise<T>): Promise<T> {
  if (!tracing() && !metering()) return call();
  return inSpan(chatName(requested), requestAttributes(request, requested), withInput(request, call), {
    kind: SpanKind.CLIENT,
    end: (span, { model, result }) => endChat(span, { model, ...result }),
  }).then((value) => {
    countTokens(requested, { model: value.model, usage: value.result.usage });
    return value;
  });
}

/**
 * Runs the opening of a streaming model call in a `chat <model>` span that stays open until the stream ends, then
 * records the response metadata, the finish part's reason and usage and, with content recording on, the text and
 * tool calls streamed.
 */
export async function traceStream<
  T extends { model: LanguageModelV4; stream: ReadableStream<LanguageModelV4StreamPart> },
>(request: Request, requested: LanguageModelV4 | undefined, call: () => Promise<T>): Promise<T> {
  if (!tracing() && !metering()) return call();
  const span = agencyTracer().startSpan(chatName(requested), {
    kind: SpanKind.CLIENT,
    attributes: requestAttributes(request, requested),
  });
  if (!span.isRecording() && !metering()) {
    span.end();
    return call();
  }
  let value: T;
  try {
    value = await context.with(trace.setSpan(context.active(), span), withInput(request, call), undefined, span);
  } catch (error) {
    markError(span, error);
    span.end();
    throw error;
  }
  return { ...value, stream: observedStream(value.stream, span, value.model, requested) };
}

// Passes a stream's parts on to the caller, noting what the span records, and ends the span when the stream ends,
// fails or is cancelled.
function observedStream(
  source: ReadableStream<LanguageModelV4StreamPart>,
  span: Span,
  model: LanguageModelV4,
  requested: LanguageModelV4 | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  const answer: Answer = { model, content: capturesContent() ? [] : undefined };
  let text = '';
  let ended = false;
  let failed = false;
  const end = (error?: unknown) => {
    if (ended) return;
    ended = true;
    if (error !== undefined && !failed) markError(span, error);
    if (text !== '') answer.content?.unshift({ type: 'text', text });
    endChat(span, answer);
    countTokens(requested, answer);
    span.end();
  };
  const note = (part: LanguageModelV4StreamPart) => {
    if (part.type === 'response-metadata') answer.response = part;
    else if (part.type === 'finish') {
      answer.finishReason = part.finishReason;
      answer.usage = part.usage;
    } else if (part.type === 'error') {
      failed = true;
      markError(span, part.error);
    } else if (answer.content && part.type === 'text-delta') text += part.delta;
    else if (answer.content && part.type === 'tool-call') answer.content.push(part);
  };
  const reader = source.getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const next = await reader.read();
        if (next.done) {
          end();
          controller.close();
          return;
        }
        note(next.value);
        controller.enqueue(next.value);
      } catch (error) {
        end(error);
        controller.error(error);
      }
    },
    // A reader that stops early without a reason has not failed the call.
    async cancel(reason) {
      end(reason);
      await reader.cancel(reason);
    },
  });
}

function withInput<T>(request: Request, call: () => Promise<T>): (span: Span) => Promise<T> {
  return (span: Span) => {
    if (capturesContent() && span.isRecording()) {
      span.setAttribute('gen_ai.input.messages', contentAttribute(genAiMessages(request.prompt)));
      const system = systemInstructions(request.prompt);
      if (system.length > 0) span.setAttribute('gen_ai.system_instructions', contentAttribute(system));
    }
    return call();
  };
}

function chatName(model: LanguageModelV4 | undefined): string {
  return model ? `chat ${model.modelId}` : 'chat';
}

/** The provider's name in the conventions' terms, from the AI SDK's `provider` (`openai.chat`, `google.vertex…`). */
export function providerName(model: LanguageModelV4): string {
  const provider = model.provider.toLowerCase();
  const head = provider.split('.')[0] ?? provider;
  if (provider.startsWith('google.vertex') || head === 'vertex') return 'gcp.vertex_ai';
  return PROVIDERS[head] ?? head;
}

const PROVIDERS: Record<string, string> = {
  google: 'gcp.gemini',
  'amazon-bedrock': 'aws.bedrock',
  bedrock: 'aws.bedrock',
  azure: 'azure.ai.openai',
  mistral: 'mistral_ai',
  xai: 'x_ai',
};

function requestAttributes(request: Request, model: LanguageModelV4 | undefined): Attributes {
  const attributes: Attributes = { 'gen_ai.operation.name': 'chat' };
  if (model) {
    attributes['gen_ai.provider.name'] = providerName(model);
    attributes['gen_ai.request.model'] = model.modelId;
  }
  const params: Array<[string, number | string[] | undefined]> = [
    ['gen_ai.request.temperature', request.temperature],
    ['gen_ai.request.max_tokens', request.maxOutputTokens],
    ['gen_ai.request.top_p', request.topP],
    ['gen_ai.request.top_k', request.topK],
    ['gen_ai.request.frequency_penalty', request.frequencyPenalty],
    ['gen_ai.request.presence_penalty', request.presencePenalty],
    ['gen_ai.request.seed', request.seed],
    ['gen_ai.request.stop_sequences', request.stopSequences],
  ];
  for (const [key, value] of params) if (value !== undefined) attributes[key] = value;
  return attributes;
}

function endChat(span: Span, answer: Answer): void {
  const { model, response, finishReason, usage, content } = answer;
  span.setAttribute('gen_ai.response.model', response?.modelId ?? model.modelId);
  if (response?.id) span.setAttribute('gen_ai.response.id', response.id);
  if (finishReason) span.setAttribute('gen_ai.response.finish_reasons', [finishReason.unified]);
  if (usage?.inputTokens.total !== undefined) span.setAttribute('gen_ai.usage.input_tokens', usage.inputTokens.total);
  if (usage?.outputTokens.total !== undefined)
    span.setAttribute('gen_ai.usage.output_tokens', usage.outputTokens.total);
  if (content && capturesContent())
    span.setAttribute('gen_ai.output.messages', contentAttribute(genAiOutput(content, finishReason)));
}

function countTokens(
  requested: LanguageModelV4 | undefined,
  { model, usage, response }: Pick<Answer, 'model' | 'usage' | 'response'>,
): void {
  if (!usage) return;
  recordTokens(
    { input: usage.inputTokens.total ?? 0, output: usage.outputTokens.total ?? 0 },
    {
      ...requestAttributes({ prompt: [] }, requested ?? model),
      'gen_ai.response.model': response?.modelId ?? model.modelId,
    },
  );
}
