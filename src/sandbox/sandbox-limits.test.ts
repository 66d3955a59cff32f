import { describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { DEFAULT_SANDBOX_LIMITS, prlimitOptions, resolveSandboxLimits } from './sandbox-limits.ts';

function refusal(run: () => unknown): AgencyError {
  try {
    run();
  } catch (error) {
    if (AgencyError.hasCode(error, 'invalid_argument')) return error;
    throw error;
  }
  throw new Error('expected invalid_argument');
}

describe('resolveSandboxLimits', () => {
  it('fills in defaults and keeps what is given', () => {
    expect(resolveSandboxLimits()).toEqual(DEFAULT_SANDBOX_LIMITS);
    expect(resolveSandboxLimits({ processes: 64, cpuSeconds: undefined })).toEqual({
      ...DEFAULT_SANDBOX_LIMITS,
      processes: 64,
    });
  });

  it('lets the total memory follow memoryBytes unless it is given', () => {
    expect(resolveSandboxLimits({ memoryBytes: 2 ** 30 })).toMatchObject({ totalMemoryBytes: 2 ** 30 });
    expect(resolveSandboxLimits({ memoryBytes: 2 ** 30, totalMemoryBytes: 2 ** 31 })).toMatchObject({
      memoryBytes: 2 ** 30,
      totalMemoryBytes: 2 ** 31,
    });
  });

  it('refuses unknown names, fractions, and values below the minimum, naming the field and the fix', () => {
    expect(refusal(() => resolveSandboxLimits({ memory: 1 } as never)).message).toMatch(
      /limits\.memory .* is not a sandbox limit; use one of processes, memoryBytes/,
    );
    expect(refusal(() => resolveSandboxLimits({ processes: 1.5 })).message).toMatch(
      /limits\.processes .* whole number/,
    );
    expect(refusal(() => resolveSandboxLimits({ memoryBytes: 512 })).message).toMatch(
      /limits\.memoryBytes \(512\) must be at least 1048576/,
    );
    expect(refusal(() => resolveSandboxLimits({ cpuSeconds: 0 })).details).toEqual({ field: 'limits.cpuSeconds' });
  });
});

describe('prlimitOptions', () => {
  it('sets each limit soft and hard, and turns core dumps off', () => {
    expect(prlimitOptions(DEFAULT_SANDBOX_LIMITS)).toEqual([
      '--nproc=1024',
      `--data=${4 * 1024 ** 3}`,
      '--cpu=3600',
      `--fsize=${1024 ** 3}`,
      '--nofile=8192',
      '--core=0',
    ]);
  });
});
