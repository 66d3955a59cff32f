// Syscall numbers for the calls the sandbox's seccomp filter inspects, from the kernel's uapi headers:
// arch/x86/entry/syscalls/syscall_64.tbl and include/uapi/asm-generic/unistd.h (which aarch64 uses). Numbers from
// 424 on are shared by every architecture. aarch64 never had chmod, open, creat or mknod: its libc uses the *at
// variants.

/** The architectures the filter is built for. */
export type SeccompArch = 'x86_64' | 'aarch64';

/** `AUDIT_ARCH_*`: what the kernel puts in `seccomp_data.arch` for a native syscall. */
export const AUDIT_ARCH: Readonly<Record<SeccompArch, number>> = {
  x86_64: 0xc000_003e,
  aarch64: 0xc000_00b7,
};

/** x86_64's x32 ABI sets this bit in the syscall number; the filter refuses such calls. */
export const X32_SYSCALL_BIT = 0x4000_0000;

const SHARED = {
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
  open_tree: 428,
  move_mount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  clone3: 435,
  openat2: 437,
  pidfd_getfd: 438,
  mount_setattr: 442,
  quotactl_fd: 443,
  fchmodat2: 452,
  open_tree_attr: 467,
} as const;

const X86_64 = {
  ...SHARED,
  open: 2,
  clone: 56,
  creat: 85,
  chmod: 90,
  fchmod: 91,
  ptrace: 101,
  mknod: 133,
  pivot_root: 155,
  acct: 163,
  mount: 165,
  umount2: 166,
  swapon: 167,
  swapoff: 168,
  reboot: 169,
  init_module: 175,
  delete_module: 176,
  quotactl: 179,
  kexec_load: 246,
  add_key: 248,
  request_key: 249,
  keyctl: 250,
  openat: 257,
  mknodat: 259,
  fchmodat: 268,
  unshare: 272,
  perf_event_open: 298,
  name_to_handle_at: 303,
  open_by_handle_at: 304,
  setns: 308,
  process_vm_readv: 310,
  process_vm_writev: 311,
  finit_module: 313,
  kexec_file_load: 320,
  bpf: 321,
  userfaultfd: 323,
} as const;

const AARCH64 = {
  ...SHARED,
  mknodat: 33,
  umount2: 39,
  mount: 40,
  pivot_root: 41,
  fchmod: 52,
  fchmodat: 53,
  openat: 56,
  quotactl: 60,
  acct: 89,
  unshare: 97,
  kexec_load: 104,
  init_module: 105,
  delete_module: 106,
  ptrace: 117,
  reboot: 142,
  add_key: 217,
  request_key: 218,
  keyctl: 219,
  clone: 220,
  swapon: 224,
  swapoff: 225,
  perf_event_open: 241,
  name_to_handle_at: 264,
  open_by_handle_at: 265,
  setns: 268,
  process_vm_readv: 270,
  process_vm_writev: 271,
  finit_module: 273,
  bpf: 280,
  userfaultfd: 282,
  kexec_file_load: 294,
} as const;

/** A syscall the filter knows by name, on at least one architecture. */
export type SyscallName = keyof typeof X86_64 | keyof typeof AARCH64;

/** Syscall numbers by architecture. A name missing for an architecture does not exist there. */
export const SYSCALLS: Readonly<Record<SeccompArch, Readonly<Partial<Record<SyscallName, number>>>>> = {
  x86_64: X86_64,
  aarch64: AARCH64,
};

/** The filter architecture for a Node `process.arch`, or undefined where agency has no syscall table. */
export function seccompArchFor(nodeArch: string): SeccompArch | undefined {
  if (nodeArch === 'x64') return 'x86_64';
  if (nodeArch === 'arm64') return 'aarch64';
  return undefined;
}
