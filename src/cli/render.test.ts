import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../task/contracts/events.ts';
import { formatFrame, type Output } from './render.ts';

const frame: EventFrame = {
  version: 'agent.events.v1',
  id: 'evt_01M84MDRQSWFBAWNBD8CZ52HMZ',
  seq: 7,
  ts: '2026-11-23T16:39:30.297Z',
  type: 'verify.pass',
  step: '0008-verify-1',
  message: 'Verify attempt 1: 1/1 criteria passed',
};
const out = (colors: boolean): Output => ({ write: () => {}, isTTY: true, colors });

describe('formatFrame', () => {
  it('colours a line only for an output that has colours (a TTY without NO_COLOR)', () => {
    const plain = formatFrame(frame, out(false));
    expect(plain).toBe(
      '16:39:30 #   7 verify.pass        0008-verify-1          Verify attempt 1: 1/1 criteria passed',
    );
    const coloured = formatFrame(frame, out(true));
    expect(coloured).toContain('\u001b[32mverify.pass       \u001b[39m');
    expect(coloured.replace(/\u001b\[\d+m/g, '')).toBe(plain);
  });
});
