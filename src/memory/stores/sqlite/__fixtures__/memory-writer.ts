// Writes entries to a SQLite memory store, one line on stdout per write: `node memory-writer.ts <file> <scope-id>
// <count>` (count 0 writes until killed). Used by the store's tests of two processes and of kill -9.
import { openSqliteMemoryStore } from '../sqlite-memory-store.ts';

const [file, scopeId, countText] = process.argv.slice(2) as [string, string, string];
const count = Number(countText);
const store = openSqliteMemoryStore({ path: file, busyTimeoutMs: 20_000 });
const filler = 'payload words for the index '.repeat(400);
for (let i = 0; count === 0 || i < count; i++) {
  await store.put({ kind: 'agent', id: scopeId }, { kind: 'fact', text: `entry ${i} from ${scopeId} ${filler}` });
  await store.put({ kind: 'agent', id: 'shared' }, { kind: 'preference', key: 'racing', text: `${scopeId} ${i}` });
  process.stdout.write(`${i}\n`);
}
store.close();
