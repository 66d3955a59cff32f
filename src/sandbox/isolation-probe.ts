import { readlinkSync } from 'node:fs';
import { SANDBOX_HOSTNAME, SANDBOX_UID } from './bwrap-args.ts';

/** The namespaces a sandbox must not share with agency (the network one too: the probe runs without network). */
const NAMESPACES = ['user', 'pid', 'mnt', 'uts', 'ipc', 'net'] as const;

/**
 * The probe's command: after the marker, its own credentials and confinement from `/proc/self/status`, the host name
 * and the namespaces it is in. A wrapper that prints a bubblewrap version and runs the command as it is would echo
 * the marker too; these lines it cannot fake without building the sandbox itself.
 */
export function isolationProbeCommand(marker: string): string[] {
  const links = NAMESPACES.map((name) => `/proc/self/ns/${name}`).join(' ');
  return ['sh', '-c', `echo ${marker}; cat /proc/self/status; cat /proc/sys/kernel/hostname; readlink ${links}`];
}

/**
 * What the probe's output shows to be missing from the sandbox, as short phrases; empty when it ran isolated: as
 * uid and gid 65534 in every slot, with no capabilities in any set, `NoNewPrivs` 1, a seccomp filter (`Seccomp` 2),
 * the sandbox's host name, and none of agency's namespaces. `ownNamespace` reads agency's own namespace links.
 */
export function isolationProblems(
  stdout: string,
  marker: string,
  ownNamespace: (name: string) => string | undefined = readOwnNamespace,
): string[] {
  const lines = stdout.split('\n');
  if (lines[0] !== marker) return ['it did not print its marker'];
  const status = new Map(
    lines.flatMap((line) => {
      const match = /^(\w+):\s*(.*)$/.exec(line);
      return match ? [[match[1] ?? '', (match[2] ?? '').trim()] as const] : [];
    }),
  );
  const problems: string[] = [];
  const expect = (field: string, wanted: string) => {
    const seen = status.get(field);
    if (seen !== wanted) problems.push(`${field} ${JSON.stringify(seen ?? 'missing')} where ${JSON.stringify(wanted)}`);
  };
  const id = Array(4).fill(String(SANDBOX_UID)).join('\t');
  expect('Uid', id);
  expect('Gid', id);
  for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) expect(set, '0000000000000000');
  expect('NoNewPrivs', '1');
  expect('Seccomp', '2');
  if (!lines.includes(SANDBOX_HOSTNAME)) problems.push(`the host name is not ${SANDBOX_HOSTNAME}`);
  for (const name of NAMESPACES) {
    const inside = lines.find((line) => line.startsWith(`${name}:[`));
    const own = ownNamespace(name);
    if (inside === undefined) problems.push(`its ${name} namespace was not shown`);
    else if (own !== undefined && inside === own) problems.push(`it shares agency's ${name} namespace`);
  }
  return problems;
}

function readOwnNamespace(name: string): string | undefined {
  try {
    return readlinkSync(`/proc/self/ns/${name}`);
  } catch {
    return undefined;
  }
}
