import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { AgencyError } from '../core/errors.ts';
import {
  DEFAULT_MODEL_CATALOG,
  lookupModel,
  type ModelCapabilities,
  type ModelCatalog,
} from '../core/model-catalog.ts';

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

/**
 * What a request needs: tools when it declares function tools, images when the prompt carries an image, and a
 * context window large enough for the prompt (estimated at 4 characters a token) plus `maxOutputTokens`.
 */
export function needsOf(request: Pick<LanguageModelV4CallOptions, 'prompt' | 'tools' | 'maxOutputTokens'>): ModelNeeds {
  let images = false;
  let characters = 0;
  for (const message of request.prompt) {
    if (typeof message.content === 'string') {
      characters += message.content.length;
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'file' && (part.mediaType === 'image' || part.mediaType.startsWith('image/'))) images = true;
      if (part.type === 'text' || part.type === 'reasoning') characters += part.text.length;
      else if (part.type === 'tool-call') characters += JSON.stringify(part.input ?? null).length;
      else if (part.type === 'tool-result') characters += JSON.stringify(part.output).length;
    }
  }
  for (const tool of request.tools ?? []) characters += JSON.stringify(tool).length;
  return {
    tools: (request.tools?.length ?? 0) > 0,
    images,
    contextTokens: Math.ceil(characters / 4) + (request.maxOutputTokens ?? 0),
  };
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
