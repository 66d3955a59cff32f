import { describe, expect, it } from 'vitest';
import { AgencyError } from './errors.ts';
import { errnoCode, syncOpenDir } from './errno.ts';

function osError(code: string): Error {
  return Object.assign(new Error(`${code}: failed`), { code });
}

describe('errnoCode', () => {
  it('reads the errno of a failed system call and nothing else', () => {
    expect(errnoCode(osError('ENOENT'))).toBe('ENOENT');
    expect(errnoCode(osError('E2BIG'))).toBe('E2BIG');
    expect(errnoCode(osError('ERR_INVALID_ARG_TYPE'))).toBeUndefined();
    expect(errnoCode(new AgencyError('file_write_failed', 'x'))).toBeUndefined();
    expect(errnoCode(new Error('no code'))).toBeUndefined();
    expect(errnoCode(null)).toBeUndefined();
    expect(errnoCode('ENOENT')).toBeUndefined();
  });
});

describe('syncOpenDir', () => {
  it('treats a file system that cannot fsync a directory as done, and passes every other failure on', async () => {
    await expect(syncOpenDir(() => Promise.reject(osError('EINVAL')))).resolves.toBeUndefined();
    await expect(syncOpenDir(() => Promise.reject(osError('EISDIR')))).resolves.toBeUndefined();
    await expect(syncOpenDir(() => Promise.reject(osError('EIO')))).rejects.toMatchObject({ code: 'EIO' });
    let synced = false;
    await syncOpenDir(async () => {
      synced = true;
    });
    expect(synced).toBe(true);
  });
});
