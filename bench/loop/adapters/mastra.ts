import { Agent } from '@mastra/core/agent';
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import type { Adapter } from '../adapter.ts';
import { createLoopModel } from '../model-v4.ts';
import { ANSWER, INPUT, type Script, TOOL_DESCRIPTION, TOOL_NAME } from '../script.ts';

// Mastra types models against its own copy of @ai-sdk/provider; the object is a LanguageModelV4 all the same.
type MastraModel = ConstructorParameters<typeof Agent>[0]['model'];

function echoTool(script: Script) {
  return createTool({
    id: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    inputSchema: z.object({ text: z.string() }),
    execute: ({ text }) => Promise.resolve(script.tool(text)),
  });
}

export const mastra: Adapter = {
  async prepare(script, maxSteps) {
    const agent = new Agent({
      id: 'bench',
      name: 'bench',
      instructions: '',
      model: createLoopModel(script) as MastraModel,
      tools: { echo: echoTool(script) },
    });
    return {
      async run() {
        const result = await agent.generate(INPUT, { maxSteps: maxSteps + 1 });
        if (result.text !== ANSWER) throw new Error(`mastra: unexpected output ${JSON.stringify(result.text)}`);
        return result;
      },
    };
  },
  async factory(script) {
    const model = createLoopModel(script) as MastraModel;
    const echo = echoTool(script);
    return () => new Agent({ id: 'bench', name: 'bench', instructions: '', model, tools: { echo } });
  },
};
