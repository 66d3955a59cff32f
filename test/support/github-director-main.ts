// `node github-director-main.ts <AGENCY_ROOT> <tasks dir>`: the GitHub director `gh` of that data root, with the
// scripted dispatch over `<tasks dir>`, in a process of its own so tests can kill it with SIGKILL at any point.
// SIGTERM is a clean shutdown. Prints `running` once it works.
import { agencyRootAt } from '../../src/config/agency-root.ts';
import { openGitHubDirector } from '../../src/fleet/directors/github/open-github-director.ts';
import { ISOLATED_GIT_ENV } from './git-remote.ts';
import { createScriptedDispatch } from './scripted-dispatch.ts';

const [root, tasks] = process.argv.slice(2) as [string, string];
const stopping = new AbortController();
const signal = new AbortController();
process.on('SIGTERM', () => stopping.abort());
const director = await openGitHubDirector({
  root: agencyRootAt(root),
  name: 'gh',
  dispatch: createScriptedDispatch(tasks),
  stopping: stopping.signal,
  signal: signal.signal,
  gitEnv: ISOLATED_GIT_ENV,
});
const done = director.run();
process.stdout.write('running\n');
await done;
process.exit(0);
