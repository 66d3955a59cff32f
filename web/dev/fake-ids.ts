// Ids and digests shaped like the runtime's, for canned data: ULIDs from a counter, sha256 of the JSON.
import { createHash } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
let counter = 0;

/** A ULID-shaped id that sorts in creation order. */
export function ulid(time = Date.now()): string {
  counter += 1;
  let head = '';
  let value = time;
  for (let i = 0; i < 10; i++) {
    head = CROCKFORD[value % 32] + head;
    value = Math.floor(value / 32);
  }
  let tail = '';
  let rest = counter;
  for (let i = 0; i < 16; i++) {
    tail = CROCKFORD[rest % 32] + tail;
    rest = Math.floor(rest / 32);
  }
  return head + tail;
}

/** The sha256 hex of a value's JSON. */
export function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
