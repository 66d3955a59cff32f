import { AgencyError } from '../core/errors.ts';

const OPT_OUT =
  "or opt out explicitly with sandbox: 'none' (createUnsandboxed), which runs commands with full host access";

/** The error for a bwrap binary that does not exist or cannot be executed. */
export function bwrapMissingError(bwrapPath: string, cause?: unknown): AgencyError {
  return new AgencyError(
    'sandbox_unavailable',
    `bubblewrap (bwrap) was not found at ${JSON.stringify(bwrapPath)}, so no command was run. Fix: install it ` +
      '(`apt-get install bubblewrap`, or `bash scripts/ensure-bwrap.sh`), pass its location as bwrapPath, ' +
      `${OPT_OUT}.`,
    { cause, details: { bwrapPath } },
  );
}

/** The error for a bwrap that runs but cannot build a sandbox, usually because user namespaces are off. */
export function bwrapBrokenError(bwrapPath: string, reason: string, cause?: unknown): AgencyError {
  const shown = reason.trim().split('\n').slice(0, 3).join(' ').slice(0, 400) || 'no error output';
  return new AgencyError(
    'sandbox_unavailable',
    `bubblewrap at ${JSON.stringify(bwrapPath)} cannot create a sandbox here (${shown}), so no command was run. ` +
      'Fix: enable unprivileged user namespaces (`sysctl -w kernel.unprivileged_userns_clone=1` on Debian; ' +
      '`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` or an AppArmor profile for bwrap on Ubuntu 23.10+; ' +
      'in a container, allow namespaces, e.g. `docker run --security-opt seccomp=unconfined ' +
      `--security-opt apparmor=unconfined\`), ${OPT_OUT}.`,
    { cause, details: { bwrapPath } },
  );
}

/** The error for a `bwrapPath` that runs but is not bubblewrap ≥ 0.8.0, such as `/usr/bin/true`. */
export function notBubblewrapError(bwrapPath: string, found: string): AgencyError {
  return new AgencyError(
    'sandbox_unavailable',
    `${JSON.stringify(bwrapPath)} is not bubblewrap 0.8.0 or later (\`${bwrapPath} --version\` printed ` +
      `${JSON.stringify((found.trim().split('\n')[0] ?? '').slice(0, 200))}), so no command was run. Fix: install bubblewrap ≥ 0.8.0 ` +
      `(\`apt-get install bubblewrap\`, or \`bash scripts/ensure-bwrap.sh\`) and pass its bwrap as bwrapPath, ${OPT_OUT}.`,
    { details: { bwrapPath } },
  );
}

/** The error for a `bwrapPath` that runs the probe but not in a sandbox, such as a wrapper that runs it directly. */
export function notIsolatedError(bwrapPath: string, problems: readonly string[]): AgencyError {
  return new AgencyError(
    'sandbox_unavailable',
    `${JSON.stringify(bwrapPath)} ran the sandbox probe without isolating it (${problems.slice(0, 6).join('; ')}), ` +
      'so no command was run. Fix: pass bubblewrap itself as bwrapPath, not a wrapper around it or a stand-in, ' +
      `${OPT_OUT}.`,
    { details: { bwrapPath, problems: [...problems] } },
  );
}

/** The error for a sandbox that cannot apply its limits or its seccomp filter on this host. */
export function sandboxSetupError(problem: string, fix: string): AgencyError {
  return new AgencyError('sandbox_unavailable', `${problem}, so no command was run. Fix: ${fix}, ${OPT_OUT}.`);
}
