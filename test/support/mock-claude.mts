#!/usr/bin/env node
// A stand-in for the `claude` CLI that prints Claude Code's stream-json (the shapes recorded in
// src/fleet/executors/claude/__fixtures__/), for fast executor and worker tests. It keeps sessions like Claude Code
// (`--session-id` creates one, `--resume` continues it, an unknown one fails) under $CLAUDE_CONFIG_DIR.
//
// The behaviour comes from MOCK_CLAUDE_MODE, else from `mock:<mode>` in the prompt (read from stdin), else `fast`:
//   fast         writes mock-output.txt in its cwd with the Write tool, then answers
//   slow         answers a little, starts a child process tree (`sleep`), then works until it is killed; it ignores
//                SIGTERM. MOCK_CLAUDE_MARKER names the sleep (`sleep <marker>`) so a test can look for it on the host.
//   rate-limit, invalid-api-key, context-window, network
//                fail the way Claude Code does (a failed `result` line, exit code 1)
//   crash        prints a stack trace on stderr and exits 2 without a result
//   escape       tries to leave its workdir (seed 004 appendix E): reads /etc/shadow, /etc/passwd, MOCK_CLAUDE_CANARY,
//                writes MOCK_CLAUDE_OUTSIDE and /tmp/agency-escape-<session id>; says ESCAPE_BLOCKED (exit 0) when no
//                read got through, else ESCAPE_SUCCEEDED (exit 1). Whether a write reached the host, the host checks.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const at = args.indexOf(name);
  return at === -1 ? undefined : args[at + 1];
};
const print = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);

if (args.includes('--version')) {
  process.stdout.write('0.0.0-mock (Claude Code)\n');
  process.exit(0);
}

const prompt = readFileSync(0, 'utf8');
const mode = process.env['MOCK_CLAUDE_MODE'] ?? /\bmock:([a-z-]+)/.exec(prompt)?.[1] ?? 'fast';
const resume = flag('--resume');
const sessionId = resume ?? flag('--session-id') ?? crypto.randomUUID();
const model = flag('--model') ?? 'claude-mock';
const configDir = process.env['CLAUDE_CONFIG_DIR'] ?? join(homedir(), '.claude');
const sessionFile = join(configDir, 'projects', process.cwd().replace(/[^a-zA-Z0-9]/g, '-'), `${sessionId}.jsonl`);
const base = { session_id: sessionId, uuid: crypto.randomUUID() };
let turn = 0;

if (resume !== undefined && !existsSync(sessionFile)) {
  process.stderr.write(`No conversation found with session ID: ${sessionId}\n`);
  result({
    subtype: 'error_during_execution',
    is_error: true,
    errors: [`No conversation found with session ID: ${sessionId}`],
  });
  process.exit(1);
}
if (resume === undefined && existsSync(sessionFile)) {
  process.stderr.write(`Error: Session ID ${sessionId} is already in use.\n`);
  process.exit(1);
}
mkdirSync(join(sessionFile, '..'), { recursive: true });
appendFileSync(sessionFile, `${JSON.stringify({ prompt })}\n`);
turn = readFileSync(sessionFile, 'utf8').trim().split('\n').length;
print({ type: 'system', subtype: 'init', cwd: process.cwd(), model, permissionMode: 'bypassPermissions', ...base });

function result(fields: Record<string, unknown>) {
  print({
    type: 'result',
    subtype: 'success',
    is_error: false,
    num_turns: 2,
    total_cost_usd: 0.01 * turn,
    usage: { input_tokens: 1000 * turn, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 50 },
    permission_denials: [],
    ...base,
    ...fields,
  });
}

function say(text: string) {
  print({ type: 'assistant', message: { model, role: 'assistant', content: [{ type: 'text', text }] }, ...base });
}

function tool(name: string, input: unknown, act: () => string): string {
  const id = `toolu_mock_${crypto.randomUUID().slice(0, 8)}`;
  print({
    type: 'assistant',
    message: { model, role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
    ...base,
  });
  let output: string;
  let failed = false;
  try {
    output = act();
  } catch (error) {
    output = String(error);
    failed = true;
  }
  const block = { type: 'tool_result', tool_use_id: id, content: output, is_error: failed };
  print({ type: 'user', message: { role: 'user', content: [block] }, ...base });
  return failed ? `blocked: ${output}` : `done: ${output}`;
}

const FAILURES: Record<string, Record<string, unknown>> = {
  'rate-limit': {
    api_error_status: 429,
    api_error_type: 'rate_limit_error',
    result: 'API Error: Request rejected (429) · rate limited',
  },
  'invalid-api-key': {
    api_error_status: 401,
    api_error_type: 'authentication_error',
    result: 'Invalid API key · Fix external API key',
  },
  'context-window': { api_error_status: 400, terminal_reason: 'prompt_too_long', result: 'Prompt is too long' },
  network: {
    api_error_status: null,
    api_error: 'connection_failed',
    result: 'API Error: Connection refused (ECONNREFUSED)',
  },
};

if (mode === 'fast') {
  say(`Working on turn ${turn}.`);
  const file = join(process.cwd(), 'mock-output.txt');
  tool('Write', { file_path: file, content: prompt }, () => {
    writeFileSync(file, `turn ${turn}: ${prompt}`);
    return `File created successfully at: ${file}`;
  });
  result({ result: `Done with turn ${turn} of session ${sessionId}.` });
} else if (mode === 'slow') {
  say('Working slowly.');
  const marker = process.env['MOCK_CLAUDE_MARKER'] ?? '3600';
  spawn('sh', ['-c', `sleep ${marker}; true`], { stdio: 'ignore' });
  process.on('SIGTERM', () => {}); // only SIGKILL, or the sandbox's end, stops it
  setInterval(() => {}, 1000);
} else if (mode in FAILURES) {
  print({
    type: 'assistant',
    message: { model: '<synthetic>', role: 'assistant', content: [{ type: 'text', text: 'API error' }] },
    ...base,
  });
  result({ subtype: 'success', is_error: true, num_turns: 1, total_cost_usd: 0, ...FAILURES[mode] });
  process.exit(1);
} else if (mode === 'crash') {
  process.stderr.write('TypeError: mock crashed\n    at main (mock-claude.mts:1:1)\n');
  process.exit(2);
} else if (mode === 'escape') {
  escape();
} else {
  process.stderr.write(`mock-claude: unknown mode ${mode}\n`);
  process.exit(2);
}

function escape() {
  const scratch = `/tmp/agency-escape-${sessionId}`;
  const attempts: Array<[string, () => string]> = [
    ['read /etc/shadow', () => readFileSync('/etc/shadow', 'utf8')],
    ['read /etc/passwd', () => readFileSync('/etc/passwd', 'utf8')],
    [`write ${scratch}`, () => (writeFileSync(scratch, 'escaped'), 'written')],
  ];
  const canary = process.env['MOCK_CLAUDE_CANARY'];
  if (canary) attempts.push([`read ${canary}`, () => readFileSync(canary, 'utf8')]);
  const outside = process.env['MOCK_CLAUDE_OUTSIDE'];
  if (outside) attempts.push([`write ${outside}`, () => (writeFileSync(outside, 'escaped'), 'written')]);
  const outcomes = attempts.map(([what, act]) => `${what}: ${tool('Bash', { command: what }, act)}`);
  // A write may land in the sandbox's private /tmp, where bwrap made the mount points: it "succeeds" and the host
  // never sees it. Only the host can judge writes (the tests check); a secret read in here is an escape for sure.
  const escaped = outcomes.filter((line) => line.startsWith('read ') && line.includes(': done:'));
  result({ result: `${escaped.length === 0 ? 'ESCAPE_BLOCKED' : 'ESCAPE_SUCCEEDED'}\n${outcomes.join('\n')}` });
  process.exit(escaped.length === 0 ? 0 : 1);
}
