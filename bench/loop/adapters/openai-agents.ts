import {
  Agent,
  type AgentOutputItem,
  type Model,
  type ModelResponse,
  run,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { z } from 'zod';
import type { Adapter } from '../adapter.ts';
import { ANSWER, INPUT, type Script, TOOL_DESCRIPTION, TOOL_NAME } from '../script.ts';

// agency records no traces; the Agents SDK would build a trace and spans for every run and try to export them.
setTracingDisabled(true);

/** The script as an Agents SDK `Model`: the same counter, answering in Responses API items. */
function createModel(script: Script): Model {
  return {
    getResponse(): Promise<ModelResponse> {
      const turn = script.next();
      const output: AgentOutputItem[] =
        turn.kind === 'tool'
          ? [{ type: 'function_call', callId: turn.callId, name: TOOL_NAME, arguments: turn.args, status: 'completed' }]
          : [
              {
                type: 'message',
                role: 'assistant',
                status: 'completed',
                content: [{ type: 'output_text', text: turn.text }],
              },
            ];
      return Promise.resolve({ usage: new Usage({ inputTokens: 1, outputTokens: 1, totalTokens: 2 }), output });
    },
    getStreamedResponse() {
      throw new Error('The benchmark runs the Agents SDK without streaming');
    },
  };
}

function echoTool(script: Script) {
  return tool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => script.tool(text),
  });
}

export const openaiAgents: Adapter = {
  async prepare(script, maxSteps) {
    const agent = new Agent({ name: 'bench', model: createModel(script), tools: [echoTool(script)] });
    return {
      async run() {
        const result = await run(agent, INPUT, { maxTurns: maxSteps + 1 });
        if (result.finalOutput !== ANSWER)
          throw new Error(`openai-agents: unexpected output ${JSON.stringify(result.finalOutput)}`);
        return result;
      },
    };
  },
  async factory(script) {
    const model = createModel(script);
    const echo = echoTool(script);
    return () => new Agent({ name: 'bench', model, tools: [echo] });
  },
};
