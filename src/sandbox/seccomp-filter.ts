import {
  assemble,
  type Instruction,
  SECCOMP_DATA_ARCH,
  SECCOMP_DATA_NR,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  seccompArgLow,
  to,
} from './seccomp-bpf.ts';
import { AUDIT_ARCH, type SeccompArch, SYSCALLS, type SyscallName, X32_SYSCALL_BIT } from './seccomp-syscalls.ts';

const EPERM = 1;
const ENOSYS = 38;
const S_ISUID_OR_S_ISGID = 0o6000;
// O_CREAT, and __O_TMPFILE (O_TMPFILE without its O_DIRECTORY part): the same bits on x86_64 and aarch64.
const CREATES_FILE = 0o100 | 0o20_000_000;
const CLONE_NEWUSER = 0x1000_0000;

/** True when the low 32 bits of syscall argument `arg` share a bit with `anyOf`. */
export type ArgTest = { arg: number; anyOf: number };

/** Syscalls that fail with `errno`, always or only when every test in `when` holds. */
export type SeccompRule = { syscalls: readonly SyscallName[]; errno: number; when?: readonly ArgTest[] };

/**
 * What the sandbox's filter refuses; everything else is allowed. Arguments are tested on their low 32 bits, which
 * is all the kernel reads of a mode, an open flag or a clone flag.
 */
export const SECCOMP_RULES: readonly SeccompRule[] = [
  // Their arguments live in memory, where a filter cannot look; libc falls back to clone and openat.
  { syscalls: ['clone3', 'openat2'], errno: ENOSYS },
  {
    errno: EPERM,
    syscalls: [
      // io_uring runs file and network operations without passing through this filter.
      ...['io_uring_setup', 'io_uring_enter', 'io_uring_register'],
      // Kernel interfaces a build or a test has no business with, and frequent sources of privilege escalations.
      ...['keyctl', 'add_key', 'request_key', 'bpf', 'perf_event_open', 'userfaultfd'],
      ...['kexec_load', 'kexec_file_load', 'init_module', 'finit_module', 'delete_module'],
      ...['mount', 'umount2', 'pivot_root', 'move_mount', 'open_tree', 'open_tree_attr', 'fsopen', 'fsmount'],
      ...['fsconfig', 'fspick', 'mount_setattr', 'setns', 'swapon', 'swapoff', 'reboot', 'acct'],
      ...['quotactl', 'quotactl_fd', 'open_by_handle_at', 'name_to_handle_at'],
      // Device nodes and FIFOs: nothing the sandbox makes may carry one onto the host.
      ...['mknod', 'mknodat'],
      // Debuggers: ptrace has a long record of local privilege escalations, and no build needs it.
      ...['ptrace', 'process_vm_readv', 'process_vm_writev', 'pidfd_getfd'],
    ] as SyscallName[],
  },
  // Setuid and setgid files: the host would see them owned by agency's user (root, often).
  { syscalls: ['chmod', 'fchmod', 'creat'], errno: EPERM, when: [{ arg: 1, anyOf: S_ISUID_OR_S_ISGID }] },
  { syscalls: ['fchmodat', 'fchmodat2'], errno: EPERM, when: [{ arg: 2, anyOf: S_ISUID_OR_S_ISGID }] },
  {
    syscalls: ['open'],
    errno: EPERM,
    when: [
      { arg: 1, anyOf: CREATES_FILE },
      { arg: 2, anyOf: S_ISUID_OR_S_ISGID },
    ],
  },
  {
    syscalls: ['openat'],
    errno: EPERM,
    when: [
      { arg: 2, anyOf: CREATES_FILE },
      { arg: 3, anyOf: S_ISUID_OR_S_ISGID },
    ],
  },
  // Nested user namespaces (bwrap's --disable-userns also stops them) reopen kernel code to the sandbox.
  { syscalls: ['clone', 'unshare'], errno: EPERM, when: [{ arg: 0, anyOf: CLONE_NEWUSER }] },
];

/**
 * The sandbox's seccomp program for `arch`, as the bytes bwrap's `--seccomp FD` reads. A call from another
 * architecture (32-bit compat) or the x32 ABI fails with ENOSYS; the calls in `rules` fail with their errno; every
 * other call is allowed.
 *
 * @example
 * buildSeccompFilter('x86_64') // Uint8Array of 8-byte sock_filter instructions
 */
export function buildSeccompFilter(arch: SeccompArch, rules: readonly SeccompRule[] = SECCOMP_RULES): Uint8Array {
  const numbers = SYSCALLS[arch];
  const program: Instruction[] = [
    { op: 'load', offset: SECCOMP_DATA_ARCH },
    { op: 'jeq', k: AUDIT_ARCH[arch], jt: 0, jf: to(`errno-${ENOSYS}`) },
    { op: 'load', offset: SECCOMP_DATA_NR },
    { op: 'jge', k: X32_SYSCALL_BIT, jt: to(`errno-${ENOSYS}`), jf: 0 },
  ];
  let block = 0;
  for (const rule of rules) {
    for (const name of rule.syscalls) {
      const nr = numbers[name];
      if (nr === undefined) continue; // not a syscall on this architecture
      if (rule.when === undefined) program.push({ op: 'jeq', k: nr, jt: to(`errno-${rule.errno}`), jf: 0 });
      else program.push(...argumentBlock(nr, rule.errno, rule.when, `skip-${block++}`));
    }
  }
  const errnos = [...new Set([ENOSYS, ...rules.map((rule) => rule.errno)])];
  program.push({ op: 'label', name: 'allow' }, { op: 'ret', k: SECCOMP_RET_ALLOW });
  for (const errno of errnos) {
    program.push({ op: 'label', name: `errno-${errno}` }, { op: 'ret', k: SECCOMP_RET_ERRNO | errno });
  }
  return assemble(program);
}

// For syscall `nr`: fail with `errno` when every test holds, allow otherwise. Other syscalls skip the block with
// the syscall number still in the accumulator; inside it the accumulator is reused, so every path returns.
function argumentBlock(nr: number, errno: number, tests: readonly ArgTest[], skip: string): Instruction[] {
  const block: Instruction[] = [{ op: 'jeq', k: nr, jt: 0, jf: to(skip) }];
  tests.forEach((test, i) => {
    const last = i === tests.length - 1;
    block.push(
      { op: 'load', offset: seccompArgLow(test.arg) },
      { op: 'jset', k: test.anyOf, jt: last ? to(`errno-${errno}`) : 0, jf: to('allow') },
    );
  });
  block.push({ op: 'label', name: skip });
  return block;
}
