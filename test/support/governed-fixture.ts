// A small governed-task fixture for runner tests: a task folder, two tools scoped to it, and a scripted model that
// answers each phase the way a real model would.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { z } from 'zod';
import type { Plan } from '../../src/task/contracts/plan.ts';
import type { TaskPaths } from '../../src/task/layout.ts';
import { type ScriptReply, ScriptedModel } from '../../src/testing/scripted-model.ts';
import { defineTool, type Tool } from '../../src/tools/define-tool.ts';

/** Creates a task folder with a brief and one input file. */
export async function makeTaskFolder(
  brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n',
): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'agency-task-'));
  await mkdir(join(root, 'task'), { recursive: true });
  await writeFile(join(root, 'task', 'brief.md'), brief);
  await writeFile(join(root, 'task', 'input.txt'), 'Agency runs governed agents. They plan, ask, act and verify.\n');
  return root;
}

/** `read_input` (read) and `write_artifact` (write), scoped to the task folder. */
export function fixtureTools(paths: TaskPaths, calls: string[] = []): Tool[] {
  return [
    defineTool({
      name: 'read_input',
      description: 'Reads a file under task/',
      input: z.object({ name: z.string() }),
      effects: 'read',
      execute: async ({ name }) => {
        calls.push(`read_input:${name}`);
        return readFile(join(paths.task, name.replace(/^task\//, '')), 'utf8');
      },
    }),
    defineTool({
      name: 'write_artifact',
      description: 'Writes a file under progress/artifacts/',
      input: z.object({ name: z.string(), text: z.string() }),
      effects: 'write',
      execute: async ({ name, text }) => {
        calls.push(`write_artifact:${name}`);
        await mkdir(paths.artifacts, { recursive: true });
        await writeFile(join(paths.artifacts, name), text);
        return `wrote ${name}`;
      },
    }),
  ];
}

export const FIXTURE_PLAN: Omit<Plan, 'version'> = {
  goal: 'Summarise task/input.txt',
  steps: [{ id: 's1', title: 'Write the summary', tools: ['write_artifact'] }],
  allowed_tools: ['write_artifact'],
  acceptance: [
    {
      id: 'a1',
      criterion: 'artifacts/summary.md exists',
      check: { type: 'file_exists', path: 'artifacts/summary.md' },
    },
  ],
};

function ask(options: LanguageModelV4CallOptions): string {
  for (let i = options.prompt.length - 1; i >= 0; i--) {
    const message = options.prompt[i];
    if (message?.role !== 'user') continue;
    const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (text.includes('Phase:')) return text;
  }
  return '';
}

function lastIsToolResult(options: LanguageModelV4CallOptions): boolean {
  return options.prompt.at(-1)?.role === 'tool';
}

/** Overrides for the scripted phases. */
export type PhaseScript = Partial<
  Record<'gather' | 'plan' | 'act' | 'verify' | 'other', (options: LanguageModelV4CallOptions) => ScriptReply>
>;

/** A model that does each phase of the default loop, in the simplest plausible way. */
export function phaseModel(overrides: PhaseScript = {}, modelId = 'gpt-4o-mini'): ScriptedModel {
  return new ScriptedModel(
    (options) => {
      const text = ask(options);
      const phase = text.includes('Phase: GATHER')
        ? 'gather'
        : text.includes('Phase: PLAN')
          ? 'plan'
          : text.includes('Phase: ACT')
            ? 'act'
            : text.includes('Phase: VERIFY')
              ? 'verify'
              : 'other';
      const override = overrides[phase];
      if (override) return override(options);
      switch (phase) {
        case 'gather':
          return lastIsToolResult(options)
            ? { text: '- Agency runs governed agents (task/input.txt).', usage: { inputTokens: 300, outputTokens: 20 } }
            : {
                toolCalls: [{ id: 'g1', name: 'read_input', input: { name: 'input.txt' } }],
                usage: { inputTokens: 250, outputTokens: 15 },
              };
        case 'plan':
          return { text: JSON.stringify(FIXTURE_PLAN), usage: { inputTokens: 400, outputTokens: 80 } };
        case 'act':
          return lastIsToolResult(options)
            ? { text: 'Wrote artifacts/summary.md.', usage: { inputTokens: 500, outputTokens: 10 } }
            : {
                toolCalls: [
                  {
                    id: 'w1',
                    name: 'write_artifact',
                    input: {
                      name: 'summary.md',
                      text: 'Agency runs governed agents that plan, ask, act and verify.\n',
                    },
                  },
                ],
                usage: { inputTokens: 450, outputTokens: 30 },
              };
        case 'verify':
          return {
            text: JSON.stringify({
              criteria: [{ id: 'a1', passed: true, evidence: 'the file exists and summarises the input' }],
            }),
            usage: { inputTokens: 350, outputTokens: 25 },
          };
        default:
          return 'I am not sure which phase this is.';
      }
    },
    { provider: 'openai.chat', modelId },
  );
}
