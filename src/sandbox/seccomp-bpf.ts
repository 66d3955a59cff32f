// Classic BPF, as the kernel's seccomp takes it: an array of `struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; }`
// in the host's byte order (little-endian on x86_64 and aarch64). Only the few instructions a syscall filter needs.

/** `ld [k]`: load the 32-bit word at offset `k` of `struct seccomp_data`. */
export const BPF_LD_W_ABS = 0x20;
/** `jeq #k`, `jge #k`, `jset #k`: compare the accumulator with `k`, jump `jt` or `jf` instructions ahead. */
export const BPF_JEQ_K = 0x15;
export const BPF_JGE_K = 0x35;
export const BPF_JSET_K = 0x45;
/** `ret #k`: the seccomp verdict. */
export const BPF_RET_K = 0x06;

export const SECCOMP_RET_ALLOW = 0x7fff_0000;
export const SECCOMP_RET_ERRNO = 0x0005_0000;

/** Offsets in `struct seccomp_data { int nr; u32 arch; u64 instruction_pointer; u64 args[6]; }`. */
export const SECCOMP_DATA_NR = 0;
export const SECCOMP_DATA_ARCH = 4;
/** The low 32 bits of syscall argument `i` (little-endian). */
export const seccompArgLow = (i: number) => 16 + 8 * i;

/** A jump target: a label defined later in the same program. */
export type Label = { readonly label: string };

/** One instruction before assembly; jumps name labels, or 0 for the next instruction. */
export type Instruction =
  | { op: 'load'; offset: number }
  | { op: 'jeq' | 'jge' | 'jset'; k: number; jt: Label | 0; jf: Label | 0 }
  | { op: 'ret'; k: number }
  | { op: 'label'; name: string };

const JUMP_CODES = { jeq: BPF_JEQ_K, jge: BPF_JGE_K, jset: BPF_JSET_K } as const;
const INSTRUCTION_BYTES = 8;
// The kernel refuses longer programs (BPF_MAXINSNS).
const MAX_INSTRUCTIONS = 4096;

/** A reference to a label, for jump targets. */
export const to = (label: string): Label => ({ label });

/**
 * Turns instructions into the bytes the kernel loads. Jumps go forward only and at most 255 instructions, as classic
 * BPF requires; a program that breaks this throws, so a bad filter never reaches bwrap.
 */
export function assemble(program: readonly Instruction[]): Uint8Array {
  const labels = new Map<string, number>();
  let count = 0;
  for (const instruction of program) {
    if (instruction.op !== 'label') count++;
    else if (labels.has(instruction.name)) throw new Error(`seccomp: label ${instruction.name} is defined twice`);
    else labels.set(instruction.name, count);
  }
  if (count > MAX_INSTRUCTIONS) throw new Error(`seccomp: ${count} instructions exceed ${MAX_INSTRUCTIONS}`);
  const bytes = new Uint8Array(count * INSTRUCTION_BYTES);
  const view = new DataView(bytes.buffer);
  let index = 0;
  for (const instruction of program) {
    if (instruction.op === 'label') continue;
    const [code, jt, jf, k] = encode(instruction, index, labels);
    const at = index * INSTRUCTION_BYTES;
    view.setUint16(at, code, true);
    view.setUint8(at + 2, jt);
    view.setUint8(at + 3, jf);
    view.setUint32(at + 4, k >>> 0, true);
    index++;
  }
  return bytes;
}

function encode(
  instruction: Instruction,
  index: number,
  labels: ReadonlyMap<string, number>,
): [code: number, jt: number, jf: number, k: number] {
  switch (instruction.op) {
    case 'load':
      return [BPF_LD_W_ABS, 0, 0, instruction.offset];
    case 'ret':
      return [BPF_RET_K, 0, 0, instruction.k];
    case 'label':
      throw new Error('seccomp: labels are not instructions');
    default: {
      const jump = (target: Label | 0) => (target === 0 ? 0 : distance(target.label, index, labels));
      return [JUMP_CODES[instruction.op], jump(instruction.jt), jump(instruction.jf), instruction.k];
    }
  }
}

function distance(label: string, index: number, labels: ReadonlyMap<string, number>): number {
  const target = labels.get(label);
  if (target === undefined) throw new Error(`seccomp: jump to undefined label ${label}`);
  const offset = target - index - 1;
  if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${label} spans ${offset} instructions`);
  return offset;
}
