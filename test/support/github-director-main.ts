// `node github-director-main.ts <AGENCY_ROOT> <tasks dir>`: the GitHub director `gh` of that data root through the
// director host, with the scripted dispatch over `<tasks dir>` in place of real workers, in a process of its own so
// tests can kill it with SIGKILL at any point. SIGTERM is a clean shutdown. Prints `running` once it works.
import { join } from 'node:path';
import { agencyRootAt } from '../../src/config/agency-root.ts';
import { githubDirectorKind } from '../../src/fleet/directors/github/github-kind.ts';
import { startDirector } from '../../src/fleet/directors/host/start-director.ts';
import { ISOLATED_GIT_ENV } from './git-remote.ts';
import { createScriptedDispatch } from './scripted-dispatch.ts';

const [root, tasks] = process.argv.slice(2) as [string, string];
const data = agencyRootAt(root);
const director = await startDirector({
  file: join(data.directors, 'gh', 'config.yaml'),
  root: data,
  version: 'test',
  port: 0,
  kind: githubDirectorKind({ dispatch: createScriptedDispatch(tasks), gitEnv: ISOLATED_GIT_ENV }),
});
process.on('SIGTERM', () => void director.stop(60_000));
process.stdout.write('running\n');
const failed = await director.closed;
process.exit(failed ? 1 : 0);
