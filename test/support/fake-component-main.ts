// A fake component (fake-component.ts) as its own process, for tests that run the real `agency` CLI against it:
//   node test/support/fake-component-main.ts --port 9001 --name web [--type view] [--fault route=kind]
// It prints `fake-component: <url>` once it listens, and exits on SIGTERM.
import { parseArgs } from 'node:util';
import { type FakeFault, startFakeComponent } from './fake-component.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    name: { type: 'string', default: 'fake' },
    type: { type: 'string', default: 'agent' },
    fault: { type: 'string', multiple: true, default: [] },
  },
});

const faults = Object.fromEntries(values.fault.map((fault) => fault.split('=') as [string, FakeFault]));
const component = await startFakeComponent({
  name: values.name,
  type: values.type as 'agent' | 'director' | 'helper' | 'view',
  port: Number(values.port),
  faults,
});
process.on('SIGTERM', () => process.exit(0));
process.stdout.write(`fake-component: ${component.url}\n`);
