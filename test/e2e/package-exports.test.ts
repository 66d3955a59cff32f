import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// Imports the package by name in a fresh Node process, as a user would, through the "agency-source" export condition
// (the CI script separately imports the built dist/ entry without it).
function importNames(specifier: string): string[] {
  const script = `const m = await import(${JSON.stringify(specifier)}); console.log(JSON.stringify(Object.keys(m).sort()));`;
  const out = execFileSync(process.execPath, ['--conditions=agency-source', '--input-type=module', '-e', script], {
    cwd: new URL('../..', import.meta.url),
    encoding: 'utf8',
  });
  return JSON.parse(out) as string[];
}

describe('package exports', () => {
  it('exports the public API from "agency"', () => {
    expect(importNames('agency')).toEqual(
      expect.arrayContaining([
        'resolveModel',
        'recordModel',
        'replayModel',
        'defineTool',
        'AgencyError',
        'createModelCaller',
      ]),
    );
  });

  it('exports ScriptedModel from "agency/testing"', () => {
    expect(importNames('agency/testing')).toEqual(expect.arrayContaining(['ScriptedModel', 'apiError']));
  });

  it('exports the agent loop, the runner, policy and memory from "agency"', () => {
    expect(importNames('agency')).toEqual(
      expect.arrayContaining([
        'LLMAgent',
        'spawn',
        'createRunner',
        'signPlan',
        'createFileBroker',
        'createPolicy',
        'strictPolicy',
        'policyProcessor',
        'createMemoryManager',
        'createRedactor',
      ]),
    );
  });

  it.each([
    ['agency/tools', ['taskTools', 'builtinTools', 'resolveInScope', 'guardedFetch', 'wrapToolWithCredentials']],
    ['agency/sandbox', ['createBwrapSandbox', 'runSandboxed', 'checkSandbox']],
    ['agency/mcp', ['connectMcp', 'createMcpServer']],
    ['agency/obs', ['createLogger']],
    ['agency/credentials', ['createCredentialBroker', 'env', 'file', 'callback']],
  ])('exports the Node-only subpath %s', (specifier, names) => {
    expect(importNames(specifier)).toEqual(expect.arrayContaining(names));
  });
});
