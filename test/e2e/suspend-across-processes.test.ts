import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ScriptedModel } from '../../src/testing/scripted-model.ts';
import { opsAgent } from './fixtures/ops-agent.ts';

it('a run suspended in one process is resumed by another', async () => {
  const model = new ScriptedModel([
    { toolCalls: [{ id: 'q1', name: 'ask_human', input: { question: 'Which region?' } }] },
  ]);
  const result = await opsAgent(model).execute({ input: 'Deploy the service' });
  expect(result.finishReason).toBe('suspended');
  const file = join(mkdtempSync(join(tmpdir(), 'agency-suspend-')), 'run.json');
  writeFileSync(file, JSON.stringify(result.suspended?.serialize()));

  const out = execFileSync(process.execPath, [join(import.meta.dirname, 'fixtures/resume-ops.ts'), file, 'eu-west-1'], {
    encoding: 'utf8',
  });
  const resumed = JSON.parse(out) as { output: string; finishReason: string; pid: number; calls: number };
  expect(resumed.pid).not.toBe(process.pid);
  expect(resumed.finishReason).toBe('stop');
  expect(resumed.output).toContain('eu-west-1');
  expect(resumed.output).toContain('q1');
  expect(resumed.calls).toBe(1);
});
