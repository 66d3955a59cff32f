import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { createTaskFiles } from '../../task/fs/task-files.ts';
import { readJournal } from '../../task/journal/read-journal.ts';
import { runWorkflow } from './durable-run.ts';
import { createWorkflow } from './workflow.ts';
import { checkWorkflowMarker, readWorkflowMarker, workflowMarkerFile } from './workflow-marker.ts';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'agency-wf-marker-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const flow = (name = 'pair') =>
  createWorkflow({
    name,
    steps: [
      { id: 'one', run: () => 1 },
      { id: 'two', dependsOn: ['one'], run: () => 2 },
    ],
  });
const frames = async () => (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
const read = () => readWorkflowMarker(createTaskFiles(root), root);
const codeOf = (action: () => unknown) =>
  Promise.resolve()
    .then(action)
    .then(
      () => 'no error',
      (error: unknown) => (AgencyError.isInstance(error) ? `${error.code}: ${error.message}` : String(error)),
    );

describe('workflow.json', () => {
  it('is written by runWorkflow from its run.started frame, and agrees with the journal', async () => {
    expect(await read()).toBeUndefined();
    await runWorkflow(flow(), { input: 'go' }, { root });
    const marker = await read();
    const written = await frames();
    expect(marker).toEqual({
      version: 'agency.workflow-run.v1',
      workflow: 'pair',
      steps: ['one', 'two'],
      started_at: written[0]?.ts,
    });
    expect(checkWorkflowMarker(marker!, written, root)).toMatchObject({ kind: 'workflow', input: 'go' });
  });

  it('refuses a malformed or linked marker, naming the file and field', async () => {
    await runWorkflow(flow(), { input: 'go' }, { root });
    const text = readFileSync(workflowMarkerFile(root), 'utf8');
    writeFileSync(workflowMarkerFile(root), JSON.stringify({ ...JSON.parse(text), steps: [], extra: true }));
    expect(await codeOf(read)).toMatch(/^task_folder_invalid: .*workflow\.json.*"steps".*Unrecognized key.*"extra"/s);
    writeFileSync(workflowMarkerFile(root), '{not json');
    expect(await codeOf(read)).toMatch(/^task_folder_invalid: .*workflow\.json is not valid JSON/);

    const elsewhere = join(root, 'elsewhere.json');
    writeFileSync(elsewhere, text);
    rmSync(workflowMarkerFile(root));
    symlinkSync(elsewhere, workflowMarkerFile(root));
    expect(await codeOf(read)).toMatch(/^path_symlink_escape: .*workflow\.json is a symbolic link/);
  });

  it("refuses a marker the journal does not bear out: another workflow's, or no run at all", async () => {
    await runWorkflow(flow(), { input: 'go' }, { root });
    const marker = (await read())!;
    const written = await frames();
    expect(await codeOf(() => checkWorkflowMarker({ ...marker, workflow: 'payroll' }, written, root))).toMatch(
      /^task_folder_invalid: .*workflow\.json: "workflow" and "steps" \(payroll: one, two\) differ from the journal's run\.started \(pair: one, two\)/,
    );
    expect(await codeOf(() => checkWorkflowMarker({ ...marker, steps: ['two', 'one'] }, written, root))).toMatch(
      /differ from the journal's run\.started/,
    );
    expect(await codeOf(() => checkWorkflowMarker(marker, [], root))).toMatch(/holds no run/);
    expect(await codeOf(() => checkWorkflowMarker(marker, written.slice(1), root))).toMatch(/not a workflow run's/);
  });
});
