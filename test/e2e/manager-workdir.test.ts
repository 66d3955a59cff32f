// The manager director and workdirs, end to end with real `agency worker` processes that accept `workdir` (within
// their `sandbox.read_write_paths`): a part delegated into a workdir runs there; the session's next turn sends the
// next part for that workdir to the same worker unasked (affinity), while a part for a new workdir goes to the first
// idle worker; inspect_workdir reads what the workers wrote, and nothing outside a delegated workdir; a workdir the
// manager may read but the worker may not write is refused by the worker, naming its read_write_paths.
import { mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { freePortBlock } from '../support/free-ports.ts';
import { managerAnswers, type Part } from '../support/manager-model.ts';
import { type PhaseAnswers, startOpenAICompatibleServer, textOf } from '../support/openai-compatible-server.ts';
import { startWorkerProcess, type WorkerProcess, waitForState, workerRoot } from '../support/worker-process.ts';

const processes: WorkerProcess[] = [];
const closers: Array<() => Promise<unknown>> = [];
let root: string;
let work: { app: string; lib: string; other: string };

beforeEach(async () => {
  root = await realpath(await workerRoot('w-one', ''));
  work = { app: join(root, 'work', 'app'), lib: join(root, 'work', 'lib'), other: join(root, 'work', 'other') };
  for (const dir of Object.values(work)) await mkdir(dir, { recursive: true });
  await writeFile(join(root, 'work', 'secret.txt'), 'not for the manager');
  // The workers may write app and lib, not other; the manager may read all of work/.
  const config = (port: number) =>
    `executor: builtin\nport: ${port}\nsandbox:\n  read_write_paths: [${work.app}, ${work.lib}]\n`;
  await writeFile(join(root, 'agents', 'w-one', 'config.yaml'), config(9001));
  await mkdir(join(root, 'agents', 'w-two'), { recursive: true });
  await writeFile(join(root, 'agents', 'w-two', 'config.yaml'), config(9002));
});

afterEach(async () => {
  await Promise.all(processes.splice(0).map((process) => process.kill('SIGKILL')));
  await Promise.all(closers.splice(0).map((close) => close()));
  await rm(root, { recursive: true, force: true });
});

async function track(started: Promise<WorkerProcess>): Promise<WorkerProcess> {
  const process = await started;
  processes.push(process);
  return process;
}

// The manager's model: the first goal's script, until a prompt names the second goal.
function byGoal(first: PhaseAnswers, second: PhaseAnswers): PhaseAnswers {
  return (phase, turn, messages) => {
    const text = messages.map(textOf).join('\n');
    return text.lastIndexOf('GOAL-2') > text.lastIndexOf('GOAL-1')
      ? second(phase, turn, messages)
      : first(phase, turn, messages);
  };
}

async function journalOf(sessionId: string, turn: number): Promise<EventFrame[]> {
  const dir = join(root, 'directors', 'manager', 'workspaces', sessionId, `turn-${turn}`, 'progress');
  return (await readJournal(join(dir, 'events.ndjson'))).frames;
}

/** The results the manager's journal holds for `tool`, in order: whether each call succeeded and what it answered. */
const results = (frames: EventFrame[], tool: string) =>
  frames
    .filter((frame) => frame.type === 'tool.result' && frame.data?.['tool'] === tool)
    .map((frame) => ({ ok: frame.data?.['ok'], text: JSON.stringify(frame.data) }));

type TaskRecord = { task_id: string; prompt: string; workdir?: string | null; output: string | null };

async function records(worker: WorkerProcess): Promise<TaskRecord[]> {
  const page = await worker.json<{ items: Array<{ task_id: string }> }>('/history');
  return Promise.all(page.items.map((item) => worker.json<TaskRecord>(`/history/${item.task_id}`)));
}

/** Polls until the task's `turn`-th turn has ended (idle, completed or failed). */
async function turnEnded(worker: WorkerProcess, taskId: string, turn: number, timeoutMs = 60_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const task = await worker.json<{ state: string; turns: number }>(`/task/${taskId}`);
    if (task.turns >= turn && ['idle', 'completed', 'failed'].includes(task.state)) return task;
    if (Date.now() > end)
      throw new Error(`task ${taskId} is ${task.state} in turn ${task.turns}, not ended in ${turn}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the manager director and workdirs', () => {
  it('sends a workdir’s next part to the worker used before, and inspects only delegated workdirs', async () => {
    const ports = await freePortBlock(3);
    const [one, two] = await Promise.all(
      ['w-one', 'w-two'].map((name, index) =>
        track(startWorkerProcess(name, root, { args: ['--port', String(ports.from + index)] })),
      ),
    );
    // Goal 1: the parser, in app, on w-two by name.
    const first: Part[] = [{ prompt: 'write parser.ts', worker: 'w-two', workdir: work.app }];
    // Goal 2: the printer in app, no worker named (w-one comes first and is idle); then, once it is done, a part in
    // lib, a workdir no worker has had, and one in a workdir the workers may not write.
    const second: Part[] = [{ prompt: 'write printer.ts', workdir: work.app }];
    const model = await startOpenAICompatibleServer(
      byGoal(
        managerAnswers({
          parts: first,
          extra: [
            { name: 'inspect_workdir', arguments: { workdir: work.app } },
            { name: 'inspect_workdir', arguments: { workdir: work.app, path: 'parser.ts' } },
          ],
        }),
        managerAnswers({
          parts: second,
          extra: [
            { name: 'inspect_workdir', arguments: { workdir: work.app, path: 'printer.ts' } },
            { name: 'inspect_workdir', arguments: { workdir: work.app, path: '../secret.txt' } },
            { name: 'inspect_workdir', arguments: { workdir: work.other } },
            { name: 'delegate_task', arguments: { prompt: 'write util.ts', workdir: work.lib } },
            { name: 'delegate_task', arguments: { prompt: 'write x.ts', worker: 'w-one', workdir: work.other } },
          ],
        }),
      ),
    );
    closers.push(() => new Promise((resolve) => model.server.close(resolve)));
    await mkdir(join(root, 'directors', 'manager'), { recursive: true });
    await writeFile(
      join(root, 'directors', 'manager', 'config.yaml'),
      [
        'type: manager',
        'name: manager',
        `port: ${ports.from + 2}`,
        `model: openai-compatible:${model.url}#local-model`,
        'approvals: auto',
        'sandbox:',
        `  read_only_paths: [${join(root, 'work')}]`,
        'discovery:',
        '  method: static',
        `  static: [${one!.url}, ${two!.url}]`,
        '',
      ].join('\n'),
    );
    const manager = await track(
      startWorkerProcess('manager', root, {
        args: ['--port', String(ports.from + 2)],
        env: { AGENCY_WORKER_TEST_EXECUTOR: '', XDG_CONFIG_HOME: root },
      }),
    );

    const created = await manager.json<{ task_id: string; session_id: string }>('/task', {
      json: { prompt: 'GOAL-1: write the parser in the app.' },
    });
    const turn1 = await waitForState(manager, created.task_id, ['idle', 'completed', 'failed'], 60_000);
    expect(turn1, JSON.stringify(turn1)).toMatchObject({ state: 'idle' });
    const frames1 = await journalOf(created.session_id, 1);
    const inspected1 = results(frames1, 'inspect_workdir');
    expect(inspected1.map((result) => result.ok)).toEqual([true, true]);
    expect(inspected1[0]!.text).toContain('parser.ts');
    expect(inspected1[1]!.text).toContain('written');

    const continued = await manager.api(`/task/${created.task_id}/continue`, {
      method: 'POST',
      json: { prompt: 'GOAL-2: now the printer in the app, and a util in the lib.' },
    });
    expect(continued.status, await continued.clone().text()).toBe(200);
    const turn2 = await turnEnded(manager, created.task_id, 2);
    expect(turn2, JSON.stringify(turn2)).toMatchObject({ state: 'idle' });

    // Affinity: the printer went to w-two, which had worked in app, though w-one comes first and was idle; the lib
    // part went to the first idle worker. Each ran in its workdir (its real path in the worker's record).
    const onOne = await records(one!);
    const onTwo = await records(two!);
    const where = (list: TaskRecord[]) =>
      list.map((record) => [record.prompt.split('\n').pop(), record.workdir]).sort();
    expect(where(onTwo)).toEqual([
      ['write parser.ts', work.app],
      ['write printer.ts', work.app],
    ]);
    expect(where(onOne)).toEqual([['write util.ts', work.lib]]);
    expect(onTwo.find((record) => record.prompt.endsWith('printer.ts'))?.output).toContain(
      'files: parser.ts,printer.ts',
    );

    const frames2 = await journalOf(created.session_id, 2);
    const inspected2 = results(frames2, 'inspect_workdir');
    expect(inspected2.map((result) => result.ok)).toEqual([true, false, false]);
    expect(inspected2[0]!.text).toContain('written');
    expect(inspected2[1]!.text).toContain('resolves outside the allowed roots');
    expect(inspected2[1]!.text).not.toContain('not for the manager');
    expect(inspected2[2]!.text).toContain('is not one this manager delegated work in');
    // A workdir the manager may read but no worker may write: the worker refuses it, naming the field to change.
    const delegated = results(frames2, 'delegate_task');
    expect(delegated.map((result) => result.ok)).toEqual([true, true, false]);
    expect(delegated[2]!.text).toContain(`workdir: ${work.other} is outside this worker's sandbox.read_write_paths`);
    expect(onOne.some((record) => record.prompt.endsWith('x.ts'))).toBe(false);
  }, 120_000);
});
