import { canonicalDigest } from '../core/canonical-json.ts';
import type { SpecFile } from './contracts/spec.ts';
import type { Loop } from './loop.ts';

/** A fingerprint of the loop and the spec a run used: the SHA-256 of their canonical JSON. */
export function loopSignatureOf(loop: Pick<Loop, 'name' | 'version'>, spec: SpecFile): string {
  const { created_at: _created, task_id: _task, ...essentials } = spec;
  return canonicalDigest({ loop: loop.name, version: loop.version, spec: essentials });
}
