import { describe, expect, it } from 'vitest';
import { isTempFileName, tempFileName } from './temp-files.ts';

describe('tempFileName', () => {
  it('makes hidden, distinct names, cutting long targets to 40 characters', () => {
    const names = Array.from({ length: 2000 }, () => tempFileName('state.json'));
    expect(new Set(names).size).toBe(2000);
    for (const name of names) {
      expect(name).toMatch(/^\.state\.json\.[0-9a-f]{12}\.agency-tmp$/);
      expect(isTempFileName(name)).toBe(true);
    }
    expect(tempFileName('x'.repeat(300))).toMatch(/^\.x{40}\.[0-9a-f]{12}\.agency-tmp$/);
    expect(isTempFileName('state.json')).toBe(false);
  });
});
