import type { ComponentChildren } from 'preact';
import type { Tone } from '../lib/tone.ts';

/** A small coloured label. */
export function Badge({
  tone,
  children,
  title,
  testId,
}: {
  tone: Tone;
  children: ComponentChildren;
  title?: string;
  testId?: string;
}) {
  return (
    <span class={`badge badge-${tone}`} title={title} data-testid={testId}>
      {children}
    </span>
  );
}
