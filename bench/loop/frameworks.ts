import type { Framework } from './adapter.ts';

/** Every framework the benchmark drives, agency first. */
export const FRAMEWORKS: readonly Framework[] = [
  {
    id: 'agency',
    label: 'agency',
    api: 'LLMAgent.execute',
    packages: [],
    load: async () => (await import('./adapters/agency.ts')).agency,
  },
  {
    id: 'ai-sdk',
    label: 'AI SDK',
    api: 'ToolLoopAgent.generate',
    packages: ['ai'],
    load: async () => (await import('./adapters/ai-sdk.ts')).aiSdk,
  },
  {
    id: 'openai-agents',
    label: 'OpenAI Agents',
    api: 'run(new Agent(…))',
    packages: ['@openai/agents'],
    load: async () => (await import('./adapters/openai-agents.ts')).openaiAgents,
  },
  {
    id: 'langgraph',
    label: 'LangGraph',
    api: 'createReactAgent(…).invoke',
    packages: ['@langchain/langgraph', '@langchain/core'],
    load: async () => (await import('./adapters/langgraph.ts')).langgraph,
  },
  {
    id: 'mastra',
    label: 'Mastra',
    api: 'Agent.generate',
    packages: ['@mastra/core'],
    load: async () => (await import('./adapters/mastra.ts')).mastra,
  },
];
