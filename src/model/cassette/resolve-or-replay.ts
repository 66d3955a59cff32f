import type { LanguageModelV4 } from '@ai-sdk/provider';
import { parseModelSpec } from '../model-spec.ts';
import { type ResolveModelOptions, resolveModel } from '../resolve-model.ts';
import { replayModel } from './replay-model.ts';

/**
 * Resolves a model spec as `resolveModel` does, and a `replay:<cassette>` spec too, by reading the cassette. The
 * runner and the CLI resolve a spec from a flag or a task's spec this way; the root entry's `resolveModel` reads no
 * file, so that it runs in any JS runtime.
 */
export function resolveModelOrReplay(
  spec: string,
  { cwd, ...options }: ResolveModelOptions & { cwd?: string } = {},
): LanguageModelV4 {
  const parsed = parseModelSpec(spec);
  if (parsed.kind !== 'replay') return resolveModel(spec, options);
  return replayModel(parsed.path, cwd === undefined ? {} : { cwd });
}
