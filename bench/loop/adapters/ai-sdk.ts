import { isStepCount, ToolLoopAgent, tool } from 'ai';
import { z } from 'zod';
import type { Adapter } from '../adapter.ts';
import { createLoopModel } from '../model-v4.ts';
import { ANSWER, INPUT, type Script, TOOL_DESCRIPTION } from '../script.ts';

function echoTool(script: Script) {
  return tool({
    description: TOOL_DESCRIPTION,
    inputSchema: z.object({ text: z.string() }),
    execute: ({ text }) => script.tool(text),
  });
}

export const aiSdk: Adapter = {
  async prepare(script, maxSteps) {
    const agent = new ToolLoopAgent({
      model: createLoopModel(script),
      tools: { echo: echoTool(script) },
      stopWhen: isStepCount(maxSteps + 1),
    });
    return {
      async run() {
        const result = await agent.generate({ prompt: INPUT });
        if (result.text !== ANSWER) throw new Error(`ai-sdk: unexpected output ${JSON.stringify(result.text)}`);
        return result;
      },
    };
  },
  async factory(script) {
    const model = createLoopModel(script);
    const echo = echoTool(script);
    return () => new ToolLoopAgent({ model, tools: { echo } });
  },
};
