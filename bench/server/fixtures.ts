// The data root the server benchmark reads: one finished governed task (for GET /agent/tasks/{id}), and task folders
// whose journals the benchmark writes itself (for delivery latency and throughput).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agencyRootAt, type AgencyRoot } from '../../src/config/agency-root.ts';
import { createTaskService, type TaskService } from '../../src/service/task-service.ts';
import { createIdGenerator } from '../../src/core/ids.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, phaseModel } from '../../test/support/governed-fixture.ts';

export type ServerFixture = { root: AgencyRoot; service: TaskService; finished: string; remove(): Promise<void> };

const newId = createIdGenerator();

/** A data root with one finished task, and the service over it. */
export async function serverFixture(): Promise<ServerFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-bench-server-'));
  const root = agencyRootAt(dir);
  const service = await createTaskService({
    root,
    models: ['bench:phase-model'],
    approvalModes: ['auto'],
    maxConcurrentRuns: 8,
    runnerFor: async () => createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths) }),
  });
  const result = await service.startAndWait(
    {
      brief: '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n',
      files: [{ name: 'input.txt', content: 'Agency runs governed agents. They plan, ask, act and verify.\n' }],
      approvals: { mode: 'auto' },
    },
    { name: 'bench' },
    'minimal',
  );
  return {
    root,
    service,
    finished: result.task_id,
    async remove() {
      await service.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** An empty task folder under the data root, for a journal the benchmark writes; returns its id and journal file. */
export async function journalFolder(root: AgencyRoot): Promise<{ id: string; events: string }> {
  const id = newId('task');
  const taskRoot = join(root.tasks, id);
  await mkdir(join(taskRoot, 'task'), { recursive: true });
  await mkdir(join(taskRoot, 'progress'), { recursive: true });
  await writeFile(join(taskRoot, 'task', 'brief.md'), '# Bench\n');
  return { id, events: join(taskRoot, 'progress', 'events.ndjson') };
}
