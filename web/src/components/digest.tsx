import { shortDigest } from '../lib/format.ts';

/** A signature or digest in monospace: shortened, the whole value in its tooltip and selectable. */
export function Digest({ value, full = false, testId }: { value: string; full?: boolean; testId?: string }) {
  return (
    <code class="mono digest" title={value} data-testid={testId}>
      {full ? value : shortDigest(value)}
    </code>
  );
}
