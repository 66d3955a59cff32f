import { z } from 'zod';
import { LLMAgent } from '../../../src/agent/llm-agent.ts';
import { defineTool } from '../../../src/tools/define-tool.ts';
import type { Adapter } from '../adapter.ts';
import { createLoopModel } from '../model-v4.ts';
import { ANSWER, INPUT, type Script, TOOL_DESCRIPTION, TOOL_NAME } from '../script.ts';

function echoTool(script: Script) {
  return defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    input: z.object({ text: z.string() }),
    effects: 'read',
    execute: ({ text }) => script.tool(text),
  });
}

export const agency: Adapter = {
  async prepare(script, maxSteps) {
    const agent = new LLMAgent({
      name: 'bench',
      model: createLoopModel(script),
      tools: [echoTool(script)],
      maxIterations: maxSteps + 1,
      // The peers keep every tool result; agency would summarise old ones past 200,000 characters of history.
      compressThreshold: -1,
    });
    return {
      async run() {
        const result = await agent.execute({ input: INPUT });
        if (result.output !== ANSWER) throw new Error(`agency: unexpected output ${JSON.stringify(result.output)}`);
        return result;
      },
    };
  },
  async factory(script) {
    const model = createLoopModel(script);
    const tools = [echoTool(script)];
    return () => new LLMAgent({ name: 'bench', model, tools });
  },
};
