// The support desk workflow the workflow tests run: an intake, then three branches side by side (a weather agent and
// a triage agent replaying the cassettes of examples/agent, and the newsroom network over a local OpenAI-compatible
// server), an approval that suspends the run, and a reply. Durable runs of it give the server a real workflow root.
import { join } from 'node:path';
import type { Agent } from '../../src/agent/types.ts';
import { runWorkflow, resumeWorkflow } from '../../src/compose/workflow/durable-run.ts';
import { createWorkflow } from '../../src/compose/workflow/workflow.ts';
import type { WorkflowStep } from '../../src/compose/workflow/types.ts';
import { replayModel } from '../../src/model/cassette/replay-model.ts';
import { resolveModel } from '../../src/model/resolve-model.ts';
import { triageAgent as exampleTriageAgent, weatherAgent as exampleWeatherAgent } from '../../examples/agent/agents.ts';
import { newsroom } from './network-team.ts';

const examples = join(import.meta.dirname, '../../examples/agent');

/** The weather agent of examples/agent, replaying its recorded streaming calls (gpt-4o), run by streaming. */
export function weatherAgent(): Agent {
  const agent = exampleWeatherAgent(replayModel(join(examples, 'weather.cassette.jsonl')));
  return {
    name: agent.name,
    description: agent.description,
    async execute(task, { onEvent, ...options } = {}) {
      const stream = agent.stream(task, options);
      for await (const event of stream) onEvent?.(event);
      return stream.result;
    },
  };
}

/** The triage agent of examples/agent, replaying its recorded calls, with a structured answer. */
export function triageAgent(): Agent {
  return exampleTriageAgent(replayModel(join(examples, 'triage.cassette.jsonl')));
}

/**
 * The desk: `intake`, then `weather` and `triage` side by side, `approve` (suspends for `{ by }`), and `reply`. With
 * `newsroomUrl` (a local server answering `newsroomAnswers`), a `newsroom` network step runs beside the agents.
 */
export function desk({ newsroomUrl }: { newsroomUrl?: string | undefined } = {}) {
  const steps: WorkflowStep[] = [
    { id: 'intake', run: ({ input }) => ({ from: 'ada@example.com', text: input }) },
    {
      id: 'weather',
      agent: weatherAgent(),
      dependsOn: ['intake'],
      input: () => 'Should I pack an umbrella for Paris or Lisbon this weekend?',
    },
    {
      id: 'triage',
      agent: triageAgent(),
      dependsOn: ['intake'],
      input: ({ outputs }) => {
        const { from, text } = outputs.intake as { from: string; text: string };
        return `From ${from}: ${text}`;
      },
    },
  ];
  const waitsFor = ['weather', 'triage'];
  if (newsroomUrl) {
    const model = () => resolveModel(`openai-compatible:${newsroomUrl}#local-model`);
    const team = newsroom({ newsroom: model(), researcher: model(), writer: model() });
    steps.push({ id: 'newsroom', agent: team, dependsOn: ['intake'], input: () => 'Write a paragraph on the Rhine' });
    waitsFor.push('newsroom');
  }
  steps.push(
    {
      id: 'approve',
      dependsOn: waitsFor,
      run: ({ outputs, resumeData, suspend }) =>
        resumeData ?? suspend({ question: 'Send this reply?', ticket: outputs.triage ?? null }),
    },
    {
      id: 'reply',
      dependsOn: ['approve'],
      run: ({ outputs }) => `${(outputs.approve as { by: string }).by} approved: ${String(outputs.weather)}`,
    },
  );
  return createWorkflow({ name: 'desk', steps });
}

/** Runs the desk durably on `root` until it suspends, then (with `approve`) resumes it to the end. */
export async function runDesk(
  root: string,
  { newsroomUrl, approve = true }: { newsroomUrl?: string | undefined; approve?: boolean },
) {
  const first = await runWorkflow(desk({ newsroomUrl }), { input: 'I was charged twice this month!' }, { root });
  if (first.finishReason !== 'suspended') throw new Error(`the desk did not suspend: ${JSON.stringify(first.error)}`);
  if (!approve) return first;
  return resumeWorkflow(desk({ newsroomUrl }), { root, input: { by: 'ops' } });
}
