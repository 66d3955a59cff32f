// What executor tests share: a session area laid out as a worker's (a session dir per session under `sessions/`, a
// per-worker HOME), requests that record their events, and a look at the host's processes.
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutorEvent, ExecutorRequest } from '../../src/fleet/executors/executor.ts';

/** The mock `claude` CLI (test/support/mock-claude.mts). */
export const MOCK_CLAUDE = join(import.meta.dirname, 'mock-claude.mts');

/** PATH with this test's Node first, so a `#!/usr/bin/env node` CLI runs on the same Node. */
export const NODE_FIRST_PATH = `${join(process.execPath, '..')}:${process.env['PATH'] ?? ''}`;

/** A temporary area like a worker's: `home/` and `sessions/<id>/`. */
export function createSessionArea() {
  const base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-executor-')));
  const home = join(base, 'home');
  mkdirSync(home);
  return {
    base,
    home,
    /** Creates (or reuses) the session dir of `sessionId`. */
    workdir: (sessionId: string) => {
      const dir = join(base, 'sessions', sessionId);
      mkdirSync(dir, { recursive: true });
      return dir;
    },
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** A request whose events land in `events`; `abort` cancels it. */
export function executorRequest(overrides: Partial<ExecutorRequest> & Pick<ExecutorRequest, 'workdir' | 'prompt'>) {
  const events: ExecutorEvent[] = [];
  const controller = new AbortController();
  const request: ExecutorRequest = {
    taskId: `task-${randomUUID().replaceAll('-', '').slice(0, 26)}`,
    sessionId: randomUUID(),
    resume: false,
    model: undefined,
    timeoutMs: 60_000,
    env: {},
    signal: controller.signal,
    onEvent: (event) => events.push(event),
    ...overrides,
  };
  return { request, events, abort: () => controller.abort() };
}

/** Resolves with the first event that matches, polling the list. */
export async function waitForEvent(
  events: ExecutorEvent[],
  matches: (event: ExecutorEvent) => boolean,
  withinMs = 20_000,
): Promise<ExecutorEvent> {
  const started = performance.now();
  for (;;) {
    const found = events.find(matches);
    if (found) return found;
    if (performance.now() - started > withinMs) throw new Error(`no matching event within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Host pids whose command line has `arg` as one of its arguments. */
export function processesWithArg(arg: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(arg)) found.push(Number(entry));
    } catch {
      // It exited meanwhile.
    }
  }
  return found;
}
