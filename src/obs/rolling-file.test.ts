import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';
import { rollingFile } from './rolling-file.ts';

describe('rollingFile', () => {
  it('keeps the last lines in two files, counting lines already there after a restart', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'agency-roll-')), 'logs', 'agent.log');
    const first = createLogger({ destination: rollingFile(path, { maxLines: 3 }) });
    for (let i = 1; i <= 2; i++) first.info(`line ${i}`);
    // A new process appends to the file and rolls it at the same count.
    const second = createLogger({ destination: rollingFile(path, { maxLines: 3 }) });
    for (let i = 3; i <= 7; i++) second.info(`line ${i}`);
    const messages = async (file: string) =>
      (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { msg: string }).msg);
    expect(await messages(`${path}.1`)).toEqual(['line 4', 'line 5', 'line 6']);
    expect(await messages(path)).toEqual(['line 7']);
  });
});
