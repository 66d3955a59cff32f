import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { AgencyError } from '../core/errors.ts';
import {
  DEFAULT_MODEL_CATALOG,
  lookupModel,
  type ModelCapabilities,
  type ModelCatalog,
} from '../core/model-catalog.ts';
import { tokensForChars } from '../core/tokens.ts';

/** A model in a fallback chain, optionally with its capabilities spelled out. */
export type ModelChoice = { model: LanguageModelV4; capabilities?: Partial<ModelCapabilities> };

/** One model, or a fallback chain tried in order. */
export type ModelChain = LanguageModelV4 | ReadonlyArray<LanguageModelV4 | ModelChoice>;

/** What a request needs from a model. */
export type ModelNeeds = { tools: boolean; images: boolean; contextTokens: number };

/** `provider:modelId`, for messages and events. */
export function modelName(model: Pick<LanguageModelV4, 'provider' | 'modelId'>): string {
  return `${model.provider}:${model.modelId}`;
}

type MessageSize = { characters: number; images: boolean };

// Tool declarations are the same objects on every call of a run, so each is sized once.
const toolSizes = new WeakMap<object, number>();

function sizeOfMessage(message: LanguageModelV4CallOptions['prompt'][number]): MessageSize {
  if (typeof message.content === 'string') return { characters: message.content.length, images: false };
  const size = { characters: 0, images: false };
  for (const part of message.content) {
    if (part.type === 'file' && (part.mediaType === 'image' || part.mediaType.startsWith('image/'))) size.images = true;
    if (part.type === 'text' || part.type === 'reasoning') size.characters += part.text.length;
    else if (part.type === 'tool-call') size.characters += JSON.stringify(part.input ?? null).length;
    else if (part.type === 'tool-result') size.characters += JSON.stringify(part.output).length;
  }
  return size;
}

function sizeOfTool(tool: NonNullable<LanguageModelV4CallOptions['tools']>[number]): number {
  let size = toolSizes.get(tool);
  if (size === undefined) toolSizes.set(tool, (size = JSON.stringify(tool).length));
  return size;
}

/**
 * What a request needs: tools when it declares function tools, images when the prompt carries an image, and a
 * context window large enough for the prompt (estimated as `estimateTokens` does) plus `maxOutputTokens`. Messages
 * and tools are treated as immutable: a prompt that grows from one seen before is sized only for its new messages.
 */
export function needsOf(request: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools' | 'maxOutputTokens'>): ModelNeeds {
  const { characters: promptCharacters, images } = sizeOfPrompt(request.prompt);
  let characters = promptCharacters;
  for (const tool of request.tools ?? []) characters += sizeOfTool(tool);
  return {
    tools: (request.tools?.length ?? 0) > 0,
    images,
    contextTokens: tokensForChars(characters) + (request.maxOutputTokens ?? 0),
  };
}

type PromptTally = MessageSize & { length: number; last: object };

// Keyed by a prompt's first message: the sizes of the prompt last seen starting with it. A later prompt that still
// holds that one's last message at the same place is the same prompt grown, so only its new messages are sized.
const promptTallies = new WeakMap<object, PromptTally>();

function sizeOfPrompt(prompt: LanguageModelV4CallOptions['prompt']): MessageSize {
  const first = prompt[0];
  if (first === undefined) return { characters: 0, images: false };
  const known = promptTallies.get(first);
  const grown = known !== undefined && known.length <= prompt.length && prompt[known.length - 1] === known.last;
  const tally: PromptTally = grown ? { ...known } : { characters: 0, images: false, length: 0, last: first };
  for (let index = tally.length; index < prompt.length; index++) {
    const message = prompt[index] as (typeof prompt)[number];
    const size = sizeOfMessage(message);
    tally.characters += size.characters;
    if (size.images) tally.images = true;
    tally.last = message;
  }
  tally.length = prompt.length;
  promptTallies.set(first, tally);
  return tally;
}

/**
 * A model's capabilities: those given in its chain entry, else the catalog's, else unknown. An unknown capability
 * is assumed present, so custom and replayed models are never skipped for lack of a catalog row.
 */
export function capabilitiesOf(choice: LanguageModelV4 | ModelChoice, catalog: ModelCatalog = DEFAULT_MODEL_CATALOG) {
  const model = 'model' in choice ? choice.model : choice;
  const given = 'model' in choice ? (choice.capabilities ?? {}) : {};
  const known = lookupModel(model.modelId, catalog)?.capabilities ?? {};
  return { model, capabilities: { ...known, ...given } as Partial<ModelCapabilities> };
}

/** Why a model cannot serve a request, or undefined when it can. */
export function missingCapability(capabilities: Partial<ModelCapabilities>, needs: ModelNeeds): string | undefined {
  if (needs.tools && capabilities.tools === false) return 'it does not support tools';
  if (needs.images && capabilities.images === false) return 'it does not accept images';
  if (capabilities.contextTokens !== undefined && needs.contextTokens > capabilities.contextTokens) {
    return `the request needs about ${needs.contextTokens} tokens of context and it has ${capabilities.contextTokens}`;
  }
  return undefined;
}

/**
 * The models of a chain that can serve a request, in order (seed 002's "model provider selection").
 * @throws AgencyError `no_capable_model` listing each model and what it lacks.
 */
export function capableModels(chain: ModelChain, needs: ModelNeeds, catalog?: ModelCatalog): LanguageModelV4[] {
  const entries = Array.isArray(chain) ? chain : [chain as LanguageModelV4];
  if (entries.length === 0)
    throw new AgencyError('invalid_argument', 'The model chain is empty; pass at least one model');
  const capable: LanguageModelV4[] = [];
  const reasons: string[] = [];
  for (const entry of entries) {
    const { model, capabilities } = capabilitiesOf(entry, catalog);
    const missing = missingCapability(capabilities, needs);
    if (missing === undefined) capable.push(model);
    else reasons.push(`${modelName(model)}: ${missing}`);
  }
  if (capable.length === 0) {
    throw new AgencyError(
      'no_capable_model',
      `No model in the chain can serve this request:\n  ${reasons.join('\n  ')}`,
      {
        details: { needs, reasons },
      },
    );
  }
  return capable;
}
