// `workdir` on POST /task: the executor works in a directory of the caller's choosing within the worker's
// sandbox.read_write_paths; anything else (outside, a symlink or .. out of it, missing, relative) is refused.
import { mkdir, mkdtemp, readFile, realpath, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { until, workerKit } from '../../../test/support/worker-kit.ts';

type Task = { task_id: string; session_id: string; state: string };

async function places() {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'agency-workdir-')));
  const allowed = join(base, 'projects');
  const project = join(allowed, 'app');
  const outside = join(base, 'elsewhere');
  await mkdir(project, { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(base, 'file'), 'x');
  return { base, allowed, project, outside };
}

describe('workdir on POST /task', () => {
  it('runs the executor in the workdir, keeps it on continue, and never clears it', async () => {
    const { allowed, project } = await places();
    await writeFile(join(project, 'README'), 'kept');
    const kit = await workerKit({ config: { sandbox: { read_write_paths: [allowed] } } });
    const created = await kit.json('/task', { json: { prompt: 'work here', workdir: `${project}/` } });
    expect(created.status).toBe(201);
    const { task_id: id } = created.body as Task;
    const first = await kit.gate.next();
    expect(first.request.workdir).toBe(project);
    expect(await readFile(join(project, 'README'), 'utf8')).toBe('kept');
    first.finish({ output: 'one', usage: { input: 1, output: 1 } });
    await until(async () => ((await kit.json(`/task/${id}`)).body.state === 'idle' ? true : undefined));
    await kit.json(`/task/${id}/continue`, { json: { prompt: 'again' } });
    const second = await kit.gate.next();
    expect(second.request.workdir).toBe(project);
    second.finish({ output: 'two', usage: { input: 1, output: 1 } });
    await until(async () => ((await kit.json(`/task/${id}`)).body.state === 'idle' ? true : undefined));
    expect((await kit.json(`/history/${id}`)).body).toMatchObject({ workdir: project });
    expect((await kit.json(`/task/${id}`)).body).not.toHaveProperty('workdir');
  });

  it('refuses workdirs outside read_write_paths, naming the field and the config key', async () => {
    const { base, allowed, project, outside } = await places();
    await symlink(outside, join(project, 'escape'));
    const kit = await workerKit({ config: { sandbox: { read_write_paths: [allowed] } } });
    const cases: Array<[string, string]> = [
      [outside, 'sandbox.read_write_paths'],
      [join(project, 'escape'), 'really'],
      [join(project, '..', '..', 'elsewhere'), 'sandbox.read_write_paths'],
      // A sibling whose name starts with the allowed one's is outside it.
      [`${allowed}-sibling`, 'sandbox.read_write_paths'],
      [join(base, 'file'), 'not an existing directory'],
      ['relative/dir', 'not an absolute path'],
      [`${project}\0`, 'not an absolute path'],
      ['/', 'sandbox.read_write_paths'],
    ];
    await mkdir(`${allowed}-sibling`, { recursive: true });
    for (const [workdir, says] of cases) {
      const answer = await kit.json('/task', { json: { prompt: 'x', workdir } });
      expect(answer.status, workdir).toBe(400);
      expect(answer.body).toMatchObject({ error: 'validation_error', details: { field: 'workdir' } });
      expect(String((answer.body as { message: string }).message), workdir).toContain(says);
    }
    expect(((await kit.json('/status')).body as { state: string }).state).toBe('idle');
  });

  it('refuses every workdir when read_write_paths is empty, saying which key to extend', async () => {
    const { project } = await places();
    const kit = await workerKit();
    const answer = await kit.json('/task', { json: { prompt: 'x', workdir: project } });
    expect(answer.status).toBe(400);
    expect((answer.body as { message: string }).message).toMatch(
      /read_write_paths \(none\); add it .* in .*config\.yaml/,
    );
  });
});
