import { describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { createWrapAction } from './command-action.ts';
import { EXIT, exitCodeForTask } from './exit-codes.ts';

describe('exit codes of agency task', () => {
  it.each([
    [{ state: 'idle', error: null }, EXIT.ok],
    [{ state: 'completed', error: null }, EXIT.ok],
    [{ state: 'failed', error: { type: 'executor_error', message: 'x' } }, EXIT.failed],
    [{ state: 'failed', error: { type: 'worker_lost', message: 'x' } }, EXIT.failed],
    [{ state: 'failed', error: { type: 'timeout', message: 'x' } }, EXIT.stopped],
    [{ state: 'cancelled', error: { type: 'cancelled', message: 'x' } }, EXIT.stopped],
  ] as const)('%j → %i', (task, code) => {
    expect(exitCodeForTask(task)).toBe(code);
  });

  it.each([
    [new AgencyError('agent_busy', 'Every worker is busy'), EXIT.busy],
    [new AgencyError('no_worker', 'none was found'), EXIT.fleet],
    [new AgencyError('response_invalid', 'malformed JSON', { details: { url: 'http://127.0.0.1:9000' } }), EXIT.fleet],
    [new AgencyError('http_error', 'HTTP 500', { details: { url: 'http://127.0.0.1:9000' } }), EXIT.fleet],
    [new AgencyError('network_failed', 'no answer', { details: { url: 'http://127.0.0.1:9000' } }), EXIT.fleet],
    [new AgencyError('timeout', 'no answer within 5 s', { details: { url: 'http://127.0.0.1:9000' } }), EXIT.fleet],
    [new AgencyError('network_failed', 'a model call failed'), EXIT.failed],
    [new AgencyError('invalid_argument', 'a prompt is needed'), EXIT.usage],
    [new AgencyError('invalid_config', 'sessions.json is corrupt'), EXIT.usage],
  ])('a command failing with %s exits %i', async (error, code) => {
    let exit: number | undefined;
    let printed = '';
    const wrap = createWrapAction({ write: (text) => (printed += text), isTTY: false }, (value) => (exit = value));
    await wrap(async () => {
      throw error;
    })();
    expect(exit).toBe(code);
    expect(printed).toBe(`agency: ${error.message}\n`);
  });
});
