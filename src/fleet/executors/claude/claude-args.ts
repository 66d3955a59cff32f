/** What one Claude Code invocation needs. */
export type ClaudeArgsOptions = {
  sessionId: string;
  resume: boolean;
  model: string | undefined;
  maxTurns: number;
  extraArgs?: readonly string[] | undefined;
};

/**
 * Claude Code's arguments for one task (checked against `claude --help` of 2.1.332). The prompt is not among them: it
 * goes on stdin, since an argument is capped at 128 KiB by the kernel and readable by every host user in
 * `/proc/<pid>/cmdline`. Permissions are skipped because the sandbox, not Claude Code's prompts, is the boundary:
 * nobody is there to answer a prompt, and Bash and the file tools can reach only what the sandbox shows.
 */
export function claudeArgs({ sessionId, resume, model, maxTurns, extraArgs = [] }: ClaudeArgsOptions): string[] {
  return [
    '--print',
    ...['--output-format', 'stream-json', '--verbose'],
    ...(model ? ['--model', model] : []),
    ...['--max-turns', String(maxTurns)],
    ...(resume ? ['--resume', sessionId] : ['--session-id', sessionId]),
    '--dangerously-skip-permissions',
    ...extraArgs,
  ];
}
