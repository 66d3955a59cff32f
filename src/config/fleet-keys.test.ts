// `database:` and `labels:` in a worker's and a director's config: what they take, and how a bad one is named.
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDirectorConfigBase } from './director-config.ts';
import { MAX_LABELS } from './labels.ts';
import { loadWorkerConfig } from './worker-config.ts';

async function file(text: string, mode = 0o600): Promise<string> {
  const dir = join(await mkdtemp(join(tmpdir(), 'agency-keys-')), 'agents', 'w1');
  await mkdir(dir, { recursive: true });
  const path = join(dir, 'config.yaml');
  await writeFile(path, text);
  await chmod(path, mode);
  return path;
}

const worker = (more: string) => `port: 9000\nexecutor: builtin\n${more}`;

async function workerProblem(text: string, mode?: number): Promise<string> {
  const path = await file(text, mode);
  const error = await loadWorkerConfig(path).then(
    () => new Error('loaded'),
    (caught: Error) => caught,
  );
  return error.message.replaceAll(path, 'config.yaml');
}

describe('database: and labels: in a worker config', () => {
  it('reads a postgres URL and the labels, sorted and without repeats', async () => {
    const config = await loadWorkerConfig(
      await file(worker('database: postgres://agency@db.internal:5432/fleet\nlabels: [linux, gpu, linux]\n'), 0o644),
    );
    expect(config).toMatchObject({ database: 'postgres://agency@db.internal:5432/fleet', labels: ['gpu', 'linux'] });
  });

  it.each([
    ['database: mysql://agency@db/fleet', '3:1: database: must be a postgres:// URL'],
    ['database: not a url', '3:1: database: must be a postgres:// URL'],
    ['database: 5432', '3:1: database: must be a postgres:// URL'],
    ['database: [postgres://a@b/c]', '3:1: database: must be a postgres:// URL'],
    ['labels: gpu', '3:1: labels: must be a list of labels, e.g. [gpu, linux]'],
    ['labels: [GPU]', '3:10: labels[0]: must be a label: a-z, 0-9'],
    ['labels: [gpu, -x]', '3:15: labels[1]: must be a label'],
    ['labels: [gpu/linux]', '3:10: labels[0]: must be a label'],
    [`labels: [${'a'.repeat(33)}]`, '3:10: labels[0]: must be a label'],
    ['labels: [7]', '3:10: labels[0]: must be a label, e.g. gpu'],
    [
      `labels: [${Array.from({ length: MAX_LABELS + 1 }, (_, index) => `l${index}`).join(', ')}]`,
      `3:1: labels: must be at most ${MAX_LABELS} labels`,
    ],
  ])('refuses %s, naming the file, line and key', async (line, expected) => {
    expect(await workerProblem(worker(`${line}\n`))).toContain(`config.yaml:${expected}`);
  });

  it('refuses a password in a config others may read, and takes it in one only its owner reads', async () => {
    const text = worker('database: postgres://agency:s3cret@db.internal/fleet\n');
    const message = await workerProblem(text, 0o644);
    expect(message).toBe(
      'config.yaml: database: the URL holds a password and the file is readable by others (mode 0644); ' +
        'chmod 600 config.yaml, or leave the password out and give it in AGENCY_DATABASE_URL or ~/.pgpass instead',
    );
    expect(message).not.toContain('s3cret');
    expect(await workerProblem(text, 0o640)).toContain('(mode 0640)');
    await expect(loadWorkerConfig(await file(text, 0o600))).resolves.toMatchObject({ labels: [] });
  });
});

describe('database: and labels: in a director config', () => {
  it('reads them, and refuses a password others may read, or a bad label', async () => {
    const base = 'type: scheduler\nname: s1\n';
    const read = await loadDirectorConfigBase(await file(`${base}database: postgres://db/fleet\nlabels: [gpu]\n`));
    expect(read).toMatchObject({ database: 'postgres://db/fleet', labels: ['gpu'] });
    const path = await file(`${base}database: postgresql://u:p@db/fleet\n`, 0o604);
    await expect(loadDirectorConfigBase(path)).rejects.toThrow(`${path}: database: the URL holds a password`);
    const bad = await file(`${base}labels: [Gpu]\n`);
    await expect(loadDirectorConfigBase(bad)).rejects.toThrow(`${bad}:3:10: labels[0]: must be a label`);
  });
});
