/** What one Codex invocation needs. */
export type CodexArgsOptions = {
  /** The thread to continue (`codex exec resume <thread>`); `'last'` for Codex's latest thread in the session dir. */
  resume: string | undefined;
  model: string | undefined;
  extraArgs?: readonly string[] | undefined;
};

/**
 * Codex's arguments for one task (checked against `codex exec --help` of 0.169.0): `codex exec --json`, or `codex exec
 * resume --json <thread>` to continue; the prompt is `-`, read from stdin (an argument is capped at 128 KiB and
 * readable in `/proc/<pid>/cmdline`). Codex's own sandbox and approval prompts are off
 * (`--dangerously-bypass-approvals-and-sandbox`, meant "for environments that are externally sandboxed"): agency's
 * sandbox is the boundary, and inside it Codex's bubblewrap could not start anyway (no user namespaces).
 * `--skip-git-repo-check` because a session dir need not be a repository.
 */
export function codexArgs({ resume, model, extraArgs = [] }: CodexArgsOptions): string[] {
  return [
    'exec',
    ...(resume === undefined ? [] : ['resume']),
    '--json',
    '--skip-git-repo-check',
    '--dangerously-bypass-approvals-and-sandbox',
    ...(model ? ['--model', model] : []),
    ...extraArgs,
    ...(resume === undefined ? [] : resume === 'last' ? ['--last'] : [resume]),
    '-',
  ];
}
