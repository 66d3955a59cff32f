// A fake worker as its own process, for tests that run the real `agency` CLI against real sockets:
//   node test/support/fake-worker-main.ts --port 9001 --name w1 [--type agent] [--starting-ms N] [--fault route=kind]
//     [--hide-pid] [--pid-file FILE] [--ignore-sigterm] [--command '["sh","-c","echo done"]']
// It prints `fake-worker: <url>` once it listens, and exits 0 after a shutdown has drained, or on SIGTERM.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type FakeFault, startFakeWorker } from './fake-worker.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    name: { type: 'string', default: 'fake-worker' },
    type: { type: 'string', default: 'agent' },
    'starting-ms': { type: 'string', default: '0' },
    fault: { type: 'string', multiple: true, default: [] },
    'hide-pid': { type: 'boolean', default: false },
    'pid-file': { type: 'string' },
    'ignore-sigterm': { type: 'boolean', default: false },
    /** A JSON array: the process every task runs (its executor), instead of the default behaviour. */
    command: { type: 'string' },
  },
});

const command = values.command ? (JSON.parse(values.command) as [string, ...string[]]) : undefined;
const faults = Object.fromEntries(values.fault.map((fault) => fault.split('=') as [string, FakeFault]));
const worker = await startFakeWorker({
  name: values.name,
  type: values.type as 'agent' | 'director' | 'helper' | 'view',
  port: Number(values.port),
  startingMs: Number(values['starting-ms']),
  faults,
  hidePid: values['hide-pid'],
  ...(command ? { behaviour: () => ({ command }) } : {}),
  onShutdown: () => process.exit(0),
});
if (values['pid-file']) writeFileSync(values['pid-file'], `${process.pid}\n`);
process.on('SIGTERM', () => {
  if (!values['ignore-sigterm']) process.exit(0);
});
process.stdout.write(`fake-worker: ${worker.url}\n`);
