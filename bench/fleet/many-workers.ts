// A child process holding `count` fake components (port 0 each; test/support/fake-component.ts), the first
// `working` of them busy with a task that never ends. It prints their URLs as one JSON line and runs until SIGTERM.
// Polling cost is the discovery's, so 50 stand-ins in one process serve where 50 worker processes would not fit.
import { startFakeComponent } from '../../test/support/fake-component.ts';

const [count = 50, working = 25] = process.argv.slice(2).map(Number);
const workers = await Promise.all(
  Array.from({ length: count }, (_, index) => startFakeComponent({ name: `w${index}` })),
);
for (const worker of workers.slice(0, working)) {
  await fetch(`${worker.url}/task`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'sleep 86400000' }),
  });
}
process.stdout.write(`${JSON.stringify(workers.map((worker) => worker.url))}\n`);
process.on('SIGTERM', () => process.exit(0));
