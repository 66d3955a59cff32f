import type {
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  SharedV4ProviderMetadata,
} from '@ai-sdk/provider';

/**
 * Turns a non-streaming result into the stream parts a provider would have sent: text and reasoning as one delta
 * each, tool calls with their input, then `finish`. Replay and scripted models use it to serve either kind of call.
 */
export function resultToStreamParts(result: LanguageModelV4GenerateResult): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: result.warnings ?? [] }];
  if (result.response) {
    const { id, timestamp, modelId } = result.response;
    parts.push({ type: 'response-metadata', ...definedOnly({ id, timestamp, modelId }) });
  }
  result.content.forEach((item, index) => {
    const id = String(index);
    const meta = 'providerMetadata' in item && item.providerMetadata ? { providerMetadata: item.providerMetadata } : {};
    switch (item.type) {
      case 'text':
        parts.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: item.text });
        parts.push({ type: 'text-end', id, ...meta, ...(item.citations ? { citations: item.citations } : {}) });
        return;
      case 'reasoning':
        parts.push({ type: 'reasoning-start', id }, { type: 'reasoning-delta', id, delta: item.text });
        parts.push({ type: 'reasoning-end', id, ...meta });
        return;
      case 'tool-call':
        parts.push({ type: 'tool-input-start', id: item.toolCallId, toolName: item.toolName });
        parts.push({ type: 'tool-input-delta', id: item.toolCallId, delta: item.input });
        parts.push({ type: 'tool-input-end', id: item.toolCallId }, item);
        return;
      default:
        parts.push(item);
    }
  });
  parts.push({
    type: 'finish',
    usage: result.usage,
    finishReason: result.finishReason,
    ...(result.providerMetadata ? { providerMetadata: result.providerMetadata } : {}),
  });
  return parts;
}

/** Collects stream parts into the result a non-streaming call would have returned. Error parts throw. */
export function streamPartsToResult(parts: readonly LanguageModelV4StreamPart[]): LanguageModelV4GenerateResult {
  const collector = createContentCollector();
  let finish: Extract<LanguageModelV4StreamPart, { type: 'finish' }> | undefined;
  let response: LanguageModelV4GenerateResult['response'];
  let warnings: LanguageModelV4GenerateResult['warnings'] = [];
  for (const part of parts) {
    if (part.type === 'finish') finish = part;
    else if (part.type === 'stream-start') warnings = part.warnings;
    else if (part.type === 'response-metadata')
      response = definedOnly({ id: part.id, timestamp: part.timestamp, modelId: part.modelId });
    else if (part.type === 'error') throw part.error;
    else collector.add(part);
  }
  return {
    content: collector.content(),
    finishReason: finish?.finishReason ?? { unified: 'interrupted', raw: undefined },
    usage: finish?.usage ?? {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
    },
    warnings,
    ...(finish?.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
    ...(response ? { response } : {}),
  };
}

/** Accumulates streamed deltas into content items, in the order each item started. */
export type ContentCollector = {
  add(part: LanguageModelV4StreamPart): void;
  content(): LanguageModelV4Content[];
};

/** Creates a {@link ContentCollector}. */
export function createContentCollector(): ContentCollector {
  const items: LanguageModelV4Content[] = [];
  const open = new Map<string, { type: 'text' | 'reasoning'; index: number }>();

  const appendDelta = (kind: 'text' | 'reasoning', id: string, delta: string, meta?: SharedV4ProviderMetadata) => {
    let slot = open.get(`${kind}:${id}`);
    if (!slot) {
      slot = { type: kind, index: items.push({ type: kind, text: '' }) - 1 };
      open.set(`${kind}:${id}`, slot);
    }
    const item = items[slot.index] as { text: string; providerMetadata?: SharedV4ProviderMetadata };
    item.text += delta;
    if (meta) item.providerMetadata = mergeMetadata(item.providerMetadata, meta);
  };

  return {
    add(part) {
      switch (part.type) {
        case 'text-start':
        case 'reasoning-start':
          appendDelta(part.type === 'text-start' ? 'text' : 'reasoning', part.id, '', part.providerMetadata);
          return;
        case 'text-delta':
        case 'reasoning-delta':
          appendDelta(part.type === 'text-delta' ? 'text' : 'reasoning', part.id, part.delta, part.providerMetadata);
          return;
        case 'text-end': {
          appendDelta('text', part.id, '', part.providerMetadata);
          const item = items[open.get(`text:${part.id}`)?.index ?? -1];
          if (item && part.citations) (item as { citations?: unknown }).citations = part.citations;
          open.delete(`text:${part.id}`);
          return;
        }
        case 'reasoning-end':
          appendDelta('reasoning', part.id, '', part.providerMetadata);
          open.delete(`reasoning:${part.id}`);
          return;
        case 'tool-input-start':
        case 'tool-input-delta':
        case 'tool-input-end':
        case 'stream-start':
        case 'response-metadata':
        case 'ping':
        case 'raw':
          return;
        default:
          items.push(part as LanguageModelV4Content);
      }
    },
    content: () => items,
  };
}

function mergeMetadata(a: SharedV4ProviderMetadata | undefined, b: SharedV4ProviderMetadata): SharedV4ProviderMetadata {
  if (!a) return b;
  const out: SharedV4ProviderMetadata = { ...a };
  for (const [provider, values] of Object.entries(b)) out[provider] = { ...a[provider], ...values };
  return out;
}

function definedOnly<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as never;
}
