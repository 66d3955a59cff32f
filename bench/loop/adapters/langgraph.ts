import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { tool } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { z } from 'zod';
import type { Adapter } from '../adapter.ts';
import { ANSWER, INPUT, type Script, TOOL_DESCRIPTION, TOOL_NAME } from '../script.ts';

/**
 * The script as a LangChain chat model with tool calling (also driven by the journal benchmark's peers). Like a real provider it binds tools as OpenAI tool
 * definitions and returns parsed tool-call arguments (LangChain's tool calls carry objects, not JSON text).
 */
export class LoopChatModel extends BaseChatModel<BaseChatModelCallOptions & { tools?: unknown[] }> {
  readonly script: Script;

  constructor(script: Script) {
    super({});
    this.script = script;
  }

  _llmType(): string {
    return 'bench-loop';
  }

  override bindTools(tools: BindToolsInput[]) {
    return this.withConfig({ tools: tools.map((item) => convertToOpenAITool(item)) });
  }

  _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const turn = this.script.next();
    const message =
      turn.kind === 'tool'
        ? new AIMessage({
            content: '',
            tool_calls: [
              { id: turn.callId, name: TOOL_NAME, args: JSON.parse(turn.args) as { text: string }, type: 'tool_call' },
            ],
          })
        : new AIMessage(turn.text);
    return Promise.resolve({ generations: [{ message, text: turn.kind === 'tool' ? '' : turn.text }] });
  }
}

export function echoTool(script: Script) {
  return tool(({ text }: { text: string }) => script.tool(text), {
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    schema: z.object({ text: z.string() }),
  });
}

export const langgraph: Adapter = {
  async prepare(script, maxSteps) {
    const agent = createReactAgent({ llm: new LoopChatModel(script), tools: [echoTool(script)] });
    // Each step is two graph super-steps (model, tools).
    const recursionLimit = 2 * maxSteps + 4;
    return {
      async run() {
        const result = await agent.invoke({ messages: [{ role: 'user', content: INPUT }] }, { recursionLimit });
        const last = result.messages.at(-1);
        if (last?.content !== ANSWER) throw new Error(`langgraph: unexpected output ${JSON.stringify(last?.content)}`);
        return result;
      },
    };
  },
  async factory(script) {
    const llm = new LoopChatModel(script);
    const echo = echoTool(script);
    return () => createReactAgent({ llm, tools: [echo] });
  },
};
