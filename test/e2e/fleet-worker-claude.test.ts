// The real Claude Code CLI behind a real `agency worker` process, driven over HTTP and by `agency task`, against a
// scripted Anthropic Messages API server: the model's side is scripted, everything else is real (the worker, its
// config, credential file and sandbox, the CLI, its tools and its sessions).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecutorSandbox } from '../../src/fleet/executors/cli/cli-executor-options.ts';
import { checkSandbox } from '../../src/sandbox/check-sandbox.ts';
import { descendantsOf } from '../../src/sandbox/process-tree.ts';
import { findAgentCli } from '../support/agent-clis.ts';
import { filesUnder, findCanary } from '../support/canary-scan.ts';
import { cli as agencyCli } from '../support/cli.ts';
import { taskText } from '../support/scripted-executor.ts';
import {
  type ScriptContext,
  type ScriptedTurn,
  startScriptedMessagesServer,
} from '../support/scripted-messages-server.ts';
import { startWorkerProcess, waitForState, type WorkerProcess, workerRoot } from '../support/worker-process.ts';

const claude = findAgentCli('claude');
const sandbox = await checkSandbox(createExecutorSandbox());
const skip = 'skip' in claude ? claude.skip : sandbox.ok ? '' : sandbox.error.message;
const claudeBin = 'bin' in claude ? claude.bin : '';
if (skip) console.warn(`agency worker with the real Claude Code skipped: ${skip}`);

type Created = { task_id: string; session_id: string; status: string };
type Task = Record<string, unknown> & { output: string; token_usage: { input: number; output: number } };
type Debug = { log: Array<{ message: string }>; stdout: string; stderr: string; prompt: string };

// Random hex only after the prefix: no run of it can match a path of the test (`agency-worker-e2e-…`), which the
// redactor would then hide too.
const KEY = `sk-ant-api03-${randomBytes(16).toString('hex')}`;
const CANARY = `host-canary-${randomBytes(8).toString('hex')}`;

// Prompts say what to do: "write <name>", "sleep", "escape <canary file> <outside path>…".
function script({ prompt, turn, cwd, toolResults }: ScriptContext): ScriptedTurn {
  const [verb, ...args] = taskText(prompt).split(/\s+/);
  if (verb === 'write') {
    const name = String(args[0]);
    if (turn === 0) return { text: 'Writing it.', tool: 'Write', input: { file_path: join(cwd, name), content: name } };
    return { text: `Wrote ${name}.` };
  }
  // Claude Code's Bash tool refuses a command that starts with a long `sleep`; after an `echo` it runs.
  if (verb === 'sleep') {
    if (turn === 0)
      return {
        text: 'Sleeping first.',
        tool: 'Bash',
        input: { command: 'echo waiting && sleep 60', description: 'wait' },
      };
    return { text: 'Slept.' };
  }
  if (verb === 'escape') {
    const [canary, credential, outside, planted, system] = args as [string, string, string, string, string];
    const steps: ScriptedTurn[] = [
      {
        tool: 'Bash',
        input: {
          command: `cat /etc/shadow; cat ${canary}; cat ${credential}; echo pwned > ${outside}.bash; printenv ANTHROPIC_API_KEY`,
          description: 'try',
        },
      },
      { tool: 'Write', input: { file_path: outside, content: 'pwned\n' } },
      { tool: 'Write', input: { file_path: planted, content: 'pwned\n' } },
      { tool: 'Write', input: { file_path: system, content: 'pwned\n' } },
    ];
    const step = steps[turn];
    if (step) return step;
    return { text: toolResults.map((result) => `${result.isError ? 'error' : 'ok'}: ${result.text}`).join('\n') };
  }
  return { text: `What is "${prompt}"?` };
}

let server: Awaited<ReturnType<typeof startScriptedMessagesServer>>;
let root: string;
let hostHome: string;
let worker: WorkerProcess;

beforeAll(async () => {
  if (skip) return;
  server = await startScriptedMessagesServer(script);
  hostHome = await mkdtemp(join(tmpdir(), 'agency-host-home-'));
  writeFileSync(join(hostHome, 'canary.txt'), `${CANARY}\n`);
  root = await workerRoot(
    'claude-1',
    [
      'port: 9000',
      'executor: claude',
      'model: claude-sonnet-4-5',
      'timeout: 2m',
      'max_turns: 10',
      'credentials:',
      '  anthropic-key: ANTHROPIC_API_KEY',
      'env:',
      `  ANTHROPIC_BASE_URL: ${server.url}`,
      '  CLAUDE_CODE_MAX_RETRIES: "0"',
      '',
    ].join('\n'),
    { 'anthropic-key': { value: KEY } },
  );
  worker = await startWorkerProcess('claude-1', root, {
    scripted: false,
    env: { CLAUDE_BIN: claudeBin, HOME: hostHome },
  });
}, 90_000);

afterAll(async () => {
  if (skip) return;
  await worker?.kill('SIGTERM');
  await server.close();
  await rm(hostHome, { recursive: true, force: true });
  await rm(root, { recursive: true, force: true });
});

const post = (path: string, json: unknown = {}) => worker.json<Record<string, unknown>>(path, { json });

describe.skipIf(skip !== '')(`agency worker with the real Claude Code${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it('runs a session over HTTP, continues it twice with its history, and ends it', async () => {
    const status = await worker.json('/status');
    expect(status).toMatchObject({
      state: 'idle',
      config: { executor: 'claude', executor_version: expect.stringContaining('(Claude Code)') as unknown },
    });
    const created = await worker.json<Created>('/task', { json: { prompt: 'write first.txt' } });
    expect(created.status).toBe('working');
    const first = (await waitForState(worker, created.task_id, ['idle', 'failed'], 60_000)) as Task;
    expect(first).toMatchObject({
      state: 'idle',
      output: 'Wrote first.txt.',
      exit_code: 0,
      session_id: created.session_id,
      error: null,
      turns: 1,
    });
    expect(first.token_usage.input).toBeGreaterThan(0);
    expect(first.cost_usd).toBeGreaterThan(0);
    for (const [turn, name] of [
      [2, 'second.txt'],
      [3, 'third.txt'],
    ] as const) {
      expect(await post(`/task/${created.task_id}/continue`, { prompt: `write ${name}` })).toMatchObject({
        state: 'working',
        session_id: created.session_id,
      });
      expect(await waitForState(worker, created.task_id, ['idle', 'failed'], 60_000)).toMatchObject({
        state: 'idle',
        output: `Wrote ${name}.`,
        turns: turn,
      });
    }
    const sessionDir = join(root, 'agents/claude-1/workspaces', created.session_id);
    expect((await readdir(sessionDir)).sort()).toEqual(['first.txt', 'second.txt', 'third.txt']);

    // --resume carried the session: the third turn's first model request holds the earlier prompts and answers.
    const conversation = server.conversation();
    const third = conversation.find((request) => JSON.stringify(request.body).includes('write third.txt'));
    const messages = JSON.stringify((third?.body as { messages: unknown[] }).messages);
    for (const earlier of ['write first.txt', 'Wrote first.txt.', 'write second.txt', 'Wrote second.txt.'])
      expect(messages).toContain(earlier);
    expect(new Set(server.requests.map((request) => request.apiKey))).toEqual(new Set([KEY]));

    expect(await post(`/task/${created.task_id}/end`)).toEqual({
      task_id: created.task_id,
      state: 'completed',
      output: 'Wrote third.txt.',
    });
    const ended = await worker.json<Task>(`/task/${created.task_id}`);
    expect(ended).toMatchObject({ state: 'completed', turns: 3 });
    expect(ended.token_usage.input).toBeGreaterThan(first.token_usage.input);

    const record = await worker.json<Debug>(`/history/${created.task_id}`);
    const debug = await worker.json<Debug>(`/task/${created.task_id}/debug`);
    for (const raw of [record, debug]) {
      expect(raw.stdout.match(/"type":"result"/g)).toHaveLength(3);
      expect(raw.stdout).toContain(`"session_id":"${created.session_id}"`);
      expect(raw.stdout).toContain('"name":"Write"');
      expect(raw.log.map((line) => line.message)).toEqual(
        ['first.txt', 'second.txt', 'third.txt'].flatMap((name, i) => [
          `turn ${i + 1}: write ${name}`,
          `Claude Code ${i === 0 ? 'starts' : 'resumes'} session ${created.session_id}`,
          expect.stringMatching(/^tool Write: \{"file_path":"\/.*\/workspaces\//) as unknown,
          'tool Write done',
        ]),
      );
    }
  }, 120_000);

  it('cancel stops the CLI and the sleep its Bash tool runs within 11 s, keeping the partial output', async () => {
    const created = await worker.json<Created>('/task', { json: { prompt: 'sleep' } });
    const pid = worker.child.pid!;
    // The whole tree under the worker once the Bash tool's `sleep 60` runs: bwrap, Claude Code, its shell, the sleep.
    const tree = await until(async () => {
      const found = descendantsOf(pid).map((ref) => ({ ...ref, command: commandOf(ref.pid) }));
      if (found.some((ref) => ref.command === 'sleep 60')) return found;
      const task = await worker.json(`/task/${created.task_id}`);
      if (task.state === 'working') return undefined;
      const { stdout } = await worker.json<Debug>(`/task/${created.task_id}/debug`);
      throw new Error(`the task is ${String(task.state)} before its sleep ran:\n${stdout}`);
    }, 30_000);
    expect(tree.some((ref) => ref.command.includes(`--session-id ${created.session_id}`))).toBe(true);
    const cancelledAt = performance.now();
    expect(await post(`/task/${created.task_id}/cancel`)).toMatchObject({ state: 'cancelling' });
    const cancelled = await waitForState(worker, created.task_id, ['cancelled', 'failed', 'idle'], 11_000);
    expect(performance.now() - cancelledAt).toBeLessThan(11_000);
    expect(cancelled).toMatchObject({
      state: 'cancelled',
      output: 'Sleeping first.',
      error: { type: 'cancelled', message: 'Cancelled by request' },
    });
    // Every process of the tree was sent SIGKILL at the latest when bwrap exited; the kernel may take a few more
    // milliseconds to tear the sandbox's namespace down.
    while (tree.some(isRunning) && performance.now() - cancelledAt < 11_000)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(tree.filter(isRunning)).toEqual([]);
    expect(descendantsOf(pid)).toEqual([]);
    const debug = await worker.json<Debug>(`/task/${created.task_id}/debug`);
    expect(debug.stdout).toContain('"command":"echo waiting && sleep 60"');
    expect(await worker.json('/status')).toMatchObject({ state: 'idle', current_task: null });
  }, 60_000);

  it('keeps an escape attempt inside its session dir: no host file read, none written outside', async () => {
    const canary = join(hostHome, 'canary.txt');
    const credential = join(root, 'credentials', 'anthropic-key');
    const outside = join(root, 'agents', 'claude-1', 'history', 'planted.txt');
    const planted = join(hostHome, 'planted.txt');
    const system = `/usr/local/agency-escape-${randomBytes(4).toString('hex')}.txt`;
    const created = await worker.json<Created>('/task', {
      json: { prompt: `escape ${canary} ${credential} ${outside} ${planted} ${system}` },
    });
    const task = (await waitForState(worker, created.task_id, ['idle', 'failed'], 60_000)) as Task;
    expect(task.state).toBe('idle');
    expect(task.output).toContain('cat: /etc/shadow: No such file or directory');
    expect(task.output).toContain(`cat: ${canary}: No such file or directory`);
    expect(task.output).toContain(`cat: ${credential}: No such file or directory`);
    expect(task.output).toContain(`${outside}.bash: No such file or directory`);
    // The key is in the executor's environment (the CLI needs it), but never in what the worker shows or keeps: it is
    // registered with the redactor and has an Anthropic key's shape, which names it.
    expect(task.output).toContain('[REDACTED:anthropic]');
    expect(task.output).toMatch(/^error: .*(read-only file system|EROFS)/im);
    // Writes into paths the sandbox does not show land in its private /tmp (where this test's data root is), and
    // vanish with it: nothing reaches the host.
    for (const path of [outside, `${outside}.bash`, planted, system]) expect(existsSync(path)).toBe(false);
    const shown = [
      JSON.stringify(task),
      JSON.stringify(await worker.json(`/task/${created.task_id}/debug`)),
      JSON.stringify(await worker.json(`/history/${created.task_id}`)),
    ];
    const kept = filesUnder(join(root, 'agents', 'claude-1'), ['workspaces', 'home']);
    expect(kept).toContain(join(root, 'agents', 'claude-1', 'history', `${created.task_id}.json`));
    for (const secret of [CANARY, KEY]) {
      for (const text of shown) expect(text).not.toContain(secret.slice(-12));
      expect(findCanary(kept, secret, root)).toEqual([]);
    }
    await post(`/task/${created.task_id}/end`);
  }, 60_000);

  it("refuses a task's env that would send the key elsewhere: the endpoint, a proxy, the TLS trust", async () => {
    const elsewhere = await startScriptedMessagesServer(() => ({ text: 'Got the key.' }));
    try {
      for (const [name, value] of [
        ['ANTHROPIC_BASE_URL', elsewhere.url],
        ['HTTPS_PROXY', elsewhere.url],
        ['HTTP_PROXY', elsewhere.url],
        ['NODE_TLS_REJECT_UNAUTHORIZED', '0'],
      ] as const) {
        const refused = await worker.api('/task', { json: { prompt: 'write leak.txt', env: { [name]: value } } });
        expect(refused.status).toBe(400);
        expect(await refused.json()).toMatchObject({
          error: 'validation_error',
          message: expect.stringContaining(`env.${name}:`) as unknown,
          details: { field: `env.${name}` },
        });
      }
      expect(await worker.json('/status')).toMatchObject({ state: 'idle', current_task: null });
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('serves the CLI director: agency task --agent, then --continue and --end', async () => {
    const director = await mkdtemp(join(tmpdir(), 'agency-director-'));
    const port = new URL(worker.url).port;
    const task = (...args: string[]) =>
      agencyCli(['task', ...args], {
        AGENCY_ROOT: director,
        AGENCY_FLEET_PORTS: `${port}-${port}`,
        AGENCY_FLEET_URLS: '',
        NO_COLOR: '1',
      });
    try {
      const first = await task('--agent', worker.url, 'write from-cli.txt');
      expect([first.code, first.stdout], first.stderr).toEqual([0, 'Wrote from-cli.txt.\n']);
      const [, taskId, sessionId] =
        /(task-\w+) started on \S+ \(.*\), session ([0-9a-f-]{36})/.exec(first.stderr) ?? [];
      expect(first.stderr).toContain(`session ${sessionId} is open`);
      const next = await task('--continue', 'write again.txt');
      expect([next.code, next.stdout], next.stderr).toEqual([0, 'Wrote again.txt.\n']);
      expect(next.stderr).toContain(`${taskId} continued on`);
      const ended = await task('--end');
      expect([ended.code, ended.stderr]).toEqual([0, expect.stringContaining(`✓ session ended (${taskId} on`)]);
      expect(await worker.json(`/task/${taskId}`)).toMatchObject({
        state: 'completed',
        turns: 2,
        output: 'Wrote again.txt.',
        session_id: sessionId,
      });
      const sessionDir = join(root, 'agents/claude-1/workspaces', sessionId!);
      expect((await readdir(sessionDir)).sort()).toEqual(['again.txt', 'from-cli.txt']);
    } finally {
      await rm(director, { recursive: true, force: true });
    }
  }, 60_000);
});

// Polls until `check` returns a value.
async function until<T>(check: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`nothing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

// The same process (pid and start time) is still there, and not a zombie.
function isRunning({ pid, startTime }: { pid: number; startTime: string }): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] !== 'Z' && fields[19] === startTime;
  } catch {
    return false;
  }
}
