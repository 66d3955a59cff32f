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
});
