import type { Command } from 'commander';

/** `--server` and `--token`, as every command that can act on a server's task takes them. */
export type ServerFlags = { server?: string; token?: string };

/** Adds `--server <url>` and `--token <token>` to a command. */
export function addServerOptions(
  command: Command,
  what = 'act on a task of an agency server: <root> is its task id',
): Command {
  return command
    .option('--server <url>', `${what} (docs/cli.md)`)
    .option('--token <token>', "the server's token (default: $AGENCY_TOKEN)");
}

/** Refuses `--token` without `--server`, which would otherwise be ignored. */
export function checkLocal(options: ServerFlags): void {
  if (options.token !== undefined)
    throw Object.assign(new Error('--token is for --server: pass the server, or leave the token out'), { exitCode: 2 });
}
