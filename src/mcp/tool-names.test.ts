import { describe, expect, it } from 'vitest';
import { assignToolNames, checkServerName } from './tool-names.ts';

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

describe('assignToolNames', () => {
  it('prefixes the server name and keeps valid tool names as they are', () => {
    const names = assignToolNames('everything', ['echo', 'get-sum', 'trigger-long-running-operation']);
    expect([...names.values()]).toEqual([
      'everything__echo',
      'everything__get-sum',
      'everything__trigger-long-running-operation',
    ]);
  });

  it('replaces characters agency does not allow with "_"', () => {
    expect(assignToolNames('fs', ['files.read', 'a/b c', 'é']).get('files.read')).toBe('fs__files_read');
    expect(assignToolNames('fs', ['a/b c']).get('a/b c')).toBe('fs__a_b_c');
    expect(assignToolNames('fs', ['é']).get('é')).toBe('fs___');
  });

  it('cuts long names to 64 characters with a stable hash of the original, so two long names stay distinct', () => {
    const long = 'x'.repeat(80);
    const names = assignToolNames('server', [`${long}_a`, `${long}_b`]);
    const [a, b] = [names.get(`${long}_a`), names.get(`${long}_b`)];
    expect(a).toMatch(NAME);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(assignToolNames('server', [`${long}_a`]).get(`${long}_a`)).toBe(a);
  });

  it('on a collision the tool whose name needed no change keeps it and the others get a hash, in any order', () => {
    const forward = assignToolNames('s', ['a_b', 'a.b', 'a/b']);
    const backward = assignToolNames('s', ['a/b', 'a.b', 'a_b']);
    expect(forward.get('a_b')).toBe('s__a_b');
    expect(forward.get('a.b')).toMatch(/^s__a_b_[0-9a-f]{6}$/);
    expect(forward.get('a/b')).toMatch(/^s__a_b_[0-9a-f]{6}$/);
    expect(new Set(forward.values()).size).toBe(3);
    expect([...backward].sort()).toEqual([...forward].sort());
  });

  it('produces valid names for every input', () => {
    const inputs = ['', ' ', '../../etc', 'a'.repeat(200), '名前', 'tool:name@v2'];
    for (const name of assignToolNames('a-server_1', inputs).values()) expect(name).toMatch(NAME);
  });
});

describe('checkServerName', () => {
  it.each(['filesystem', 'gh-1', 'my_server', 'A'])('accepts %s', (name) => {
    expect(checkServerName(name)).toBe(name);
  });

  it.each(['', 'a__b', 'has space', '_lead', 'trail_', 'x'.repeat(33), 'dot.ted', 42])('refuses %j', (name) => {
    expect(() => checkServerName(name)).toThrow(/not usable as a tool-name prefix/);
  });
});
