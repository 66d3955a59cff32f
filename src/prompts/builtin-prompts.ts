import { createInMemoryPromptStore } from './in-memory-prompt-store.ts';
import type { PromptStore, PromptTemplate } from './prompt-store.ts';
import { type PromptSet, promptSetOf } from './prompt-set.ts';

// agency's own prompts: the governed runner's (runner.*) and LLMAgent's (agent.*). A shipped version is never edited
// (builtin-prompts.test.ts pins each one's digest): a change is a new version added after it, so a journal or a
// cassette that names `runner.plan@1` always means the same text, and an operator can pin an older version.
// Version 2 of the runner's persona and phase asks says the same in fewer words: every call of a run carries them,
// so their length is most of what agency adds to a transcript (docs/evals.md, "Framework overhead"). Act's ask no
// longer names request_replan: the tool's own description, sent with every Act call, says when to call it, and the
// refusal of a tool outside the plan names it again.

const SHIPPED = '2026-11-25T00:00:00.000Z';

function builtin(
  id: string,
  description: string,
  text: string,
  requiredVars: string[] = [],
  version = 1,
): PromptTemplate {
  return {
    id,
    version,
    text,
    requiredVars,
    engine: 'mustache',
    metadata: { description },
    createdBy: 'agency',
    createdAt: SHIPPED,
  };
}

/** Every version of agency's built-in prompts. */
export const BUILTIN_PROMPTS: readonly PromptTemplate[] = Object.freeze([
  builtin(
    'runner.persona',
    'The system prompt of every model call of a governed run.',
    'You are a careful, governed agent working on a task in a folder. Inputs are under task/ (read-only); your ' +
      'working area is progress/, and files you produce go under progress/artifacts/. Each request tells you the ' +
      'current phase and what it allows. Use tools for facts; never invent file contents or results. Be concise.',
  ),
  builtin(
    'runner.gather',
    'The ask of Gather: explore the inputs with read-only tools and report findings.',
    'Phase: GATHER. Explore the task inputs with read-only tools: read the files under task/, and fetch the links ' +
      'the task lists if it lists any. Do not change anything. Then answer with your findings as Markdown: the facts ' +
      'that matter for the goal, each with its source (a file path or URL). Do not plan or do the work yet.',
  ),
  builtin(
    'runner.plan',
    'The ask of Plan; `tools` lists the tools a plan may allow, one "- name (effects): description" a line.',
    [
      'Phase: PLAN. Write the plan for doing the task: its goal, its steps (each naming the tools it uses), the tools',
      'the work needs ("allowed_tools": only these will be allowed when acting) and its acceptance criteria. Your',
      'answer is read as JSON against the plan schema of the response format.',
      'A criterion may carry a deterministic check that Verify runs: file_exists or contains (a text) for a file,',
      'json_validate (a file against a JSON Schema), or test_runner. Paths are relative to progress/.',
      'Available tools:',
      '{{tools}}',
    ].join('\n'),
    ['tools'],
  ),
  builtin(
    'runner.act',
    'The ask of Act; `plan` is the approved plan as JSON, `feedback` what to fix first (empty on the first attempt).',
    [
      '{{#feedback}}{{feedback}}',
      '',
      '{{/feedback}}Phase: ACT. Carry out the approved plan below with the tools. Only the tools in allowed_tools will run; if the',
      'work needs another tool, call request_replan with the tools to add and why. When every step is done, answer',
      'with a short summary of what you produced and where (paths under progress/).',
      '',
      '{{plan}}',
    ].join('\n'),
    ['feedback', 'plan'],
  ),
  builtin(
    'runner.verify',
    'The ask of Verify; `criteria` one "- id: criterion" a line, `deliverables` a comma-separated list, `refused` one "- file" a line (or empty).',
    [
      'Phase: VERIFY. Judge whether the work meets each acceptance criterion. Read the deliverables with the read-only',
      'tools. Your answer is read as JSON against the judgement schema of the response format: for every criterion,',
      'its id, whether it passed, and the evidence.',
      '',
      'Criteria:',
      '{{criteria}}',
      '',
      'Deliverables: {{deliverables}}{{#refused}}',
      '',
      'Not delivered:',
      '{{refused}}{{/refused}}',
    ].join('\n'),
    ['criteria', 'deliverables', 'refused'],
  ),
  builtin(
    'runner.refine',
    'The feedback Act gets after a failed Verify; `failures` is one "- id: criterion (evidence)" a line.',
    'Verification failed for:\n{{failures}}\nFix these, then summarise again.',
    ['failures'],
  ),
  builtin(
    'runner.replanned',
    'The note Act continues with after a re-plan; `version` is the new plan version, `tools` its allowed tools.',
    'The plan is now v{{version}}; allowed tools: {{tools}}. Continue the work.',
    ['version', 'tools'],
  ),
  builtin(
    'runner.persona',
    'The system prompt of every model call of a governed run.',
    'Inputs are in task/ (read-only); write in progress/, deliverables in progress/artifacts/. Use tools for ' +
      'facts; never invent file contents or results. Be concise.',
    [],
    2,
  ),
  builtin(
    'runner.gather',
    'The ask of Gather: explore the inputs with read-only tools and report findings.',
    'Phase: GATHER. Read the inputs and any links the task lists; change nothing. Answer in Markdown with the ' +
      'facts the goal needs, each with its source. Do not plan yet.',
    [],
    2,
  ),
  builtin(
    'runner.plan',
    'The ask of Plan; `tools` lists the tools a plan may allow, one "- name (effects): description" a line.',
    [
      'Phase: PLAN. Answer with the plan as JSON in the response format: goal, steps (each naming its tools),',
      'allowed_tools (only these will run when acting) and acceptance criteria, each of which may carry a check that',
      'Verify runs: file_exists, contains, json_validate or test_runner (paths relative to progress/). Tools:',
      '{{tools}}',
    ].join('\n'),
    ['tools'],
    2,
  ),
  builtin(
    'runner.act',
    'The ask of Act; `plan` is the approved plan as lines (goal, steps, allowed_tools, criteria), `feedback` what to fix first (empty on the first attempt).',
    [
      '{{#feedback}}{{feedback}}',
      '',
      '{{/feedback}}Phase: ACT. Carry out the approved plan below; only its allowed_tools will run. Then summarise',
      'what you produced, with paths.',
      '',
      '{{plan}}',
    ].join('\n'),
    ['feedback', 'plan'],
    2,
  ),
  builtin(
    'runner.verify',
    'The ask of Verify; `criteria` one "- id: criterion" a line, `deliverables` a comma-separated list, `refused` one "- file" a line (or empty).',
    [
      'Phase: VERIFY. Read the deliverables and judge each criterion. Answer as JSON in the response format: each',
      "criterion's id, whether it passed, and the evidence. Criteria:",
      '{{criteria}}',
      'Deliverables: {{deliverables}}{{#refused}}',
      'Not delivered:',
      '{{refused}}{{/refused}}',
    ].join('\n'),
    ['criteria', 'deliverables', 'refused'],
    2,
  ),
  builtin(
    'runner.propose',
    "The planner's ask in the plan-act-reflect loop; `history` is the actions so far as JSON, `tools` the tool names as JSON.",
    'Goal: {{goal}}\nActions so far:\n{{history}}\n' +
      'Propose the next action as one JSON object: {"type":"tool","toolId":one of {{tools}},"input":{…},"reason":"…"}, ' +
      'or {"type":"finish","message":"the final answer"}. Do not call tools yourself.',
    ['goal', 'history', 'tools'],
  ),
  builtin(
    'agent.synthesis',
    "LLMAgent's last call at the iteration cap, made without tools.",
    'You have reached the maximum number of tool-calling steps. Do not call any more tools. Using what you have ' +
      'gathered so far, give your best final answer now.',
  ),
  builtin(
    'agent.repair',
    'LLMAgent\'s repair turn for an answer that does not match its schema; `issues` one "- issue" a line, `schema` the JSON Schema.',
    [
      'Your answer does not match the required JSON schema:',
      '{{issues}}',
      'Reply with the corrected answer: only the JSON value, matching this schema:',
      '{{schema}}',
    ].join('\n'),
    ['issues', 'schema'],
  ),
  builtin(
    'agent.compress',
    "The system prompt of LLMAgent's context compression call, which summarises old tool results.",
    'You compress the tool results of an agent that is still working on its task. Summarise the results below in ' +
      'plain text: keep every fact, number, name, path and error the agent may still need, drop repetition and ' +
      'boilerplate. Answer with the summary only.',
  ),
]);

let shared: PromptStore | undefined;

/**
 * A store of agency's built-in prompts ({@link BUILTIN_PROMPTS}), in memory. Each call returns a fresh store, so a
 * `put` to it stays in that store.
 */
export function builtinPromptStore(): PromptStore {
  return createInMemoryPromptStore({ templates: BUILTIN_PROMPTS });
}

/** One built-in store per process for readers that never put (the agent's and the runner's defaults). */
export function sharedBuiltinPrompts(): PromptStore {
  shared ??= builtinPromptStore();
  return shared;
}

let sharedSet: PromptSet | undefined;

/**
 * The latest built-in version of every built-in prompt, as a prompt set: what `LLMAgent` renders its own prompts
 * (`agent.*`) from when it is given no other set.
 */
export function builtinPromptSet(): PromptSet {
  if (!sharedSet) {
    const latest = new Map<string, PromptTemplate>();
    for (const template of BUILTIN_PROMPTS) {
      const held = latest.get(template.id);
      if (!held || held.version < template.version) latest.set(template.id, template);
    }
    sharedSet = promptSetOf(latest);
  }
  return sharedSet;
}

/**
 * The variables agency gives each of its prompts. A version put to override one may use these and no others: the
 * runner refuses a version that uses another before the run's first model call.
 */
export const BUILTIN_PROMPT_VARIABLES: Readonly<Record<string, readonly string[]>> = Object.freeze(
  Object.fromEntries(BUILTIN_PROMPTS.map((template) => [template.id, template.requiredVars])),
);
