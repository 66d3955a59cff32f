import { describe, expect, it } from 'vitest';
import {
  assemble,
  BPF_JEQ_K,
  BPF_JGE_K,
  BPF_JSET_K,
  BPF_LD_W_ABS,
  BPF_RET_K,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  to,
} from './seccomp-bpf.ts';
import { buildSeccompFilter } from './seccomp-filter.ts';
import { AUDIT_ARCH, type SeccompArch, SYSCALLS, type SyscallName } from './seccomp-syscalls.ts';

type Call = { nr: number; arch: number; args?: readonly bigint[] };

/** Decodes the program and runs it the way the kernel does, returning the verdict for one syscall. */
function run(program: Uint8Array, call: Call): number {
  expect(program.length % 8).toBe(0);
  const view = new DataView(program.buffer, program.byteOffset, program.byteLength);
  const data = new DataView(new ArrayBuffer(64));
  data.setInt32(0, call.nr, true);
  data.setUint32(4, call.arch, true);
  (call.args ?? []).forEach((arg, i) => data.setBigUint64(16 + 8 * i, BigInt.asUintN(64, arg), true));
  let accumulator = 0;
  for (let pc = 0; pc < program.length / 8; pc++) {
    const code = view.getUint16(pc * 8, true);
    const [jt, jf, k] = [view.getUint8(pc * 8 + 2), view.getUint8(pc * 8 + 3), view.getUint32(pc * 8 + 4, true)];
    if (code === BPF_LD_W_ABS) accumulator = data.getUint32(k, true);
    else if (code === BPF_RET_K) return k;
    else if (code === BPF_JEQ_K) pc += accumulator === k ? jt : jf;
    else if (code === BPF_JGE_K) pc += accumulator >= k ? jt : jf;
    else if (code === BPF_JSET_K) pc += (accumulator & k) !== 0 ? jt : jf;
    else throw new Error(`unexpected instruction ${code.toString(16)} at ${pc}`);
  }
  throw new Error('the program ran off its end');
}

const EPERM = SECCOMP_RET_ERRNO | 1;
const ENOSYS = SECCOMP_RET_ERRNO | 38;

describe.each(['x86_64', 'aarch64'] as SeccompArch[])('buildSeccompFilter(%s)', (arch) => {
  const program = buildSeccompFilter(arch);
  const nr = (name: SyscallName) => {
    const number = SYSCALLS[arch][name];
    if (number === undefined) throw new Error(`${name} is not a syscall on ${arch}`);
    return number;
  };
  const verdict = (name: SyscallName, ...args: bigint[]) =>
    run(program, { nr: nr(name), arch: AUDIT_ARCH[arch], args });

  it('allows syscalls it does not name, such as read (0 or 63)', () => {
    const read = arch === 'x86_64' ? 0 : 63;
    expect(run(program, { nr: read, arch: AUDIT_ARCH[arch] })).toBe(SECCOMP_RET_ALLOW);
  });

  it('refuses other architectures and the x32 ABI with ENOSYS', () => {
    expect(run(program, { nr: 3, arch: 0x4000_0003 })).toBe(ENOSYS); // i386 compat
    expect(run(program, { nr: nr('openat'), arch: arch === 'x86_64' ? AUDIT_ARCH.aarch64 : AUDIT_ARCH.x86_64 })).toBe(
      ENOSYS,
    );
    expect(run(program, { nr: 0x4000_0000 | 2, arch: AUDIT_ARCH[arch] })).toBe(ENOSYS);
  });

  it('denies kernel interfaces outright', () => {
    const denied: SyscallName[] = ['mount', 'keyctl', 'bpf', 'io_uring_setup', 'io_uring_enter', 'mknodat', 'ptrace'];
    for (const name of denied) expect(verdict(name), name).toBe(EPERM);
    expect(verdict('clone3')).toBe(ENOSYS);
    expect(verdict('openat2')).toBe(ENOSYS);
  });

  it('denies setting setuid or setgid bits, and allows other modes', () => {
    expect(verdict('fchmodat', 3n, 0n, 0o4755n)).toBe(EPERM);
    expect(verdict('fchmodat', 3n, 0n, 0o2755n)).toBe(EPERM);
    expect(verdict('fchmodat2', 3n, 0n, 0o6755n, 0n)).toBe(EPERM);
    expect(verdict('fchmod', 3n, 0o4700n)).toBe(EPERM);
    expect(verdict('fchmodat', 3n, 0n, 0o755n)).toBe(SECCOMP_RET_ALLOW);
    expect(verdict('fchmod', 3n, 0o1777n)).toBe(SECCOMP_RET_ALLOW); // sticky is harmless
    // Only the low 32 bits count, as in the kernel: high garbage does not turn a mode into a denied one.
    expect(verdict('fchmod', 3n, 0x1_0000_0000n | 0o644n)).toBe(SECCOMP_RET_ALLOW);
  });

  it('denies creating a setuid file with openat, and ignores the mode when nothing is created', () => {
    const O_CREAT = 0o100n;
    const O_TMPFILE = 0o20_200_000n; // __O_TMPFILE | O_DIRECTORY on x86_64
    expect(verdict('openat', 3n, 0n, O_CREAT | 1n, 0o4755n)).toBe(EPERM);
    expect(verdict('openat', 3n, 0n, O_TMPFILE | 2n, 0o2755n)).toBe(EPERM);
    expect(verdict('openat', 3n, 0n, O_CREAT | 1n, 0o755n)).toBe(SECCOMP_RET_ALLOW);
    expect(verdict('openat', 3n, 0n, 0n, 0o4755n)).toBe(SECCOMP_RET_ALLOW);
  });

  it('denies new user namespaces through clone and unshare, and allows threads', () => {
    const CLONE_NEWUSER = 0x1000_0000n;
    const THREAD = 0x3d0f00n; // glibc's pthread_create flags
    expect(verdict('clone', CLONE_NEWUSER | 17n)).toBe(EPERM);
    expect(verdict('unshare', CLONE_NEWUSER)).toBe(EPERM);
    expect(verdict('clone', THREAD)).toBe(SECCOMP_RET_ALLOW);
    expect(verdict('unshare', 0x400n)).toBe(SECCOMP_RET_ALLOW); // CLONE_FILES
  });

  if (arch === 'x86_64') {
    it('covers the legacy x86_64 calls: chmod, creat and open', () => {
      expect(verdict('chmod', 0n, 0o4755n)).toBe(EPERM);
      expect(verdict('creat', 0n, 0o6755n)).toBe(EPERM);
      expect(verdict('open', 0n, 0o101n, 0o4755n)).toBe(EPERM);
      expect(verdict('open', 0n, 0o101n, 0o644n)).toBe(SECCOMP_RET_ALLOW);
      expect(verdict('mknod', 0n, 0o10644n, 0n)).toBe(EPERM);
    });
  }
});

describe('assemble', () => {
  it('encodes little-endian sock_filter instructions with forward jumps', () => {
    const bytes = assemble([
      { op: 'load', offset: 4 },
      { op: 'jeq', k: 0xc000_003e, jt: 0, jf: to('deny') },
      { op: 'ret', k: SECCOMP_RET_ALLOW },
      { op: 'label', name: 'deny' },
      { op: 'ret', k: SECCOMP_RET_ERRNO | 1 },
    ]);
    expect([...bytes]).toEqual([
      ...[0x20, 0, 0, 0, 4, 0, 0, 0],
      ...[0x15, 0, 0, 1, 0x3e, 0, 0, 0xc0],
      ...[0x06, 0, 0, 0, 0, 0, 0xff, 0x7f],
      ...[0x06, 0, 0, 0, 1, 0, 5, 0],
    ]);
  });

  it('refuses jumps it cannot encode', () => {
    expect(() => assemble([{ op: 'jeq', k: 1, jt: to('nowhere'), jf: 0 }])).toThrow(/undefined label/);
    const far = Array.from({ length: 300 }, () => ({ op: 'ret', k: 0 }) as const);
    expect(() => assemble([{ op: 'jeq', k: 1, jt: to('end'), jf: 0 }, ...far, { op: 'label', name: 'end' }])).toThrow(
      /spans 300/,
    );
  });
});
