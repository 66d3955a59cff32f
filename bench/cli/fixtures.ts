import { rm } from 'node:fs/promises';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../../test/support/governed-fixture.ts';

/** The task folders `agency status` is timed on. */
export type StatusFolders = {
  /** A task folder with a brief and an input, never run: status checks the folder and finds no state. */
  fresh: string;
  /** A governed run that completed (auto approvals, the test fixture's scripted model): status reads its state. */
  finished: string;
  remove(): Promise<void>;
};

/** Makes the folders in this process; the commands timed on them run in fresh processes. */
export async function makeStatusFolders(): Promise<StatusFolders> {
  const fresh = await makeTaskFolder();
  const finished = await makeTaskFolder();
  const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
  const result = await runner.doTask(finished, { approvals: { mode: 'auto' } });
  if (result.finishReason !== 'completed') throw new Error(`the fixture run ended ${result.finishReason}`);
  return {
    fresh,
    finished,
    remove: async () => {
      await Promise.all([fresh, finished].map((root) => rm(root, { recursive: true, force: true })));
    },
  };
}
