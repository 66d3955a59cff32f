import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../core/messages.ts';
import { createTaskFiles } from './fs/task-files.ts';
import { type TaskPaths, taskPaths } from './layout.ts';
import { createPhasePrompts } from './task-context.ts';

let root: string;
let paths: TaskPaths;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'agency-task-context-')));
  paths = taskPaths(root);
  await mkdir(join(paths.task, 'docs'), { recursive: true });
  await mkdir(paths.progress, { recursive: true });
  await writeFile(join(paths.task, 'brief.md'), '# Summarise the report\n');
  await writeFile(join(paths.task, 'agency.json'), '{"tools":["fs_read"]}\n');
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function contextText(phase: string): Promise<string> {
  const prompts = createPhasePrompts({
    paths,
    files: createTaskFiles(root),
    brief: '# Summarise the report\n',
    persona: 'Be careful.',
  });
  const messages: Message[] = await prompts(phase);
  expect(messages[0]).toMatchObject({ role: 'system', content: 'Be careful.' });
  const user = messages[1];
  if (user?.role !== 'user') throw new Error('no task context');
  return user.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('the task context of a phase', () => {
  it('quotes the brief, and lists the other inputs on one line, without the brief or agency.json', async () => {
    await writeFile(join(paths.task, 'report.md'), 'Q3 revenue rose.\n');
    // Only the brief and the settings at the root of task/ are left out; a file of the same name deeper is an input.
    await writeFile(join(paths.task, 'docs', 'brief.md'), 'An older brief.\n');
    await writeFile(join(paths.task, 'docs', 'agency.json'), '{}\n');
    expect(await contextText('gather')).toBe(
      '# Task brief (task/brief.md)\n\n# Summarise the report\n\n' +
        'Input files: task/docs/agency.json, task/docs/brief.md, task/report.md',
    );
  });

  it('has no input line when the brief is the only input, and adds the findings after Gather', async () => {
    expect(await contextText('gather')).toBe('# Task brief (task/brief.md)\n\n# Summarise the report');
    await writeFile(paths.findings, '## Findings\n\n- Revenue rose (task/report.md).\n');
    expect(await contextText('gather')).not.toContain('Findings');
    expect(await contextText('plan')).toBe(
      '# Task brief (task/brief.md)\n\n# Summarise the report\n\n' +
        '# Findings (progress/findings.md)\n\n## Findings\n\n- Revenue rose (task/report.md).',
    );
  });
});
