import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

it('the agent example in docs/agent.md runs offline from its cassette', () => {
  const out = execFileSync(process.execPath, [join(root, 'examples/agent/weather.ts')], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  expect(out).toContain('→ get_weather({"city":"Paris"})');
  expect(out).toContain('← {"tempC":21,"sky":"sunny"}');
  expect(out).toContain('Pack an umbrella for Paris');
  expect(out).toMatch(/1 tool iteration\(s\), 2 tool call\(s\), 635 tokens, \$0\.00\d+/);
});

it('the structured-output example in docs/agent.md runs offline from its cassette', () => {
  const out = execFileSync(process.execPath, [join(root, 'examples/agent/triage.ts')], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH },
  });
  expect(out).toContain('billing / high: Ada (team plan) was invoiced twice this month');
  expect(out).toMatch(/1 tool call\(s\), 536 tokens, \$0\.00\d+/);
});
