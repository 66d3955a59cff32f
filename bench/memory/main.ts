import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { InMemoryStore } from '@langchain/langgraph';
import { writeDocsBlock } from '../docs-block.ts';
import { runFails, targetLines } from '../journal/report.ts';
import { machine } from '../machine.ts';
import type { MemoryStore } from '../../src/memory/memory-store.ts';
import { openPostgresMemoryStore } from '../../src/memory/stores/postgres/postgres-memory-store.ts';
import { openSqliteMemoryStore } from '../../src/memory/stores/sqlite/sqlite-memory-store.ts';
import { startPostgres } from '../../test/support/postgres.ts';
import { benchEmbeddingModel, broadQuery, entryText, selectiveQuery, vectorFor } from './data.ts';
import { type Latency, latency, load } from './measure.ts';
import { type MemoryReport, reportLines, type Row, targetResults } from './report.ts';

const HELP = `npm run bench -- memory [--quick]

  --quick   bounded run for CI (2,000 entries instead of 100,000 and 1,000,000); it fails if a query returns the
            wrong thing, and reports a missed timing target without failing
A full run fails on any missed target, and rewrites the memory results section of docs/benchmarks.md.`;

const FULL = {
  mode: 'full',
  ftsSizes: [100_000, 1_000_000],
  vectorSize: 100_000,
  pgSize: 100_000,
  runs: 200,
  vectorRuns: 50,
} as const;
const QUICK = { mode: 'quick', ftsSizes: [2_000], vectorSize: 2_000, pgSize: 2_000, runs: 30, vectorRuns: 20 } as const;
type Config = typeof FULL | typeof QUICK;
const DIMS = 768;
const SCOPE = { kind: 'agent', id: 'bench' } as const;

/** The memory benchmark: text and vector recall in the SQLite and PostgreSQL stores, beside LangGraph's store. */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { quick: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  if (values.help) return void console.log(HELP);
  const config: Config = values.quick ? QUICK : FULL;
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'agency-bench-memory-'));
  const rows: Row[] = [];
  try {
    for (const size of config.ftsSizes) {
      const store = openSqliteMemoryStore({ path: join(dir, `fts-${size}.db`) });
      rows.push(await textRows('agency SQLite', size, store, config));
      store.close();
    }
    const vectors = openSqliteMemoryStore({ path: join(dir, 'vec.db'), embedding: embeddingOption() });
    rows.push(await vectorRow('agency SQLite', config.vectorSize, vectors, config));
    vectors.close();
    rows.push(...(await postgresRows(config)));
    rows.push(await langGraphRow(config));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const report: MemoryReport = {
    benchmark: 'memory',
    mode: config.mode,
    date: new Date().toISOString(),
    elapsedSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    machine: machine(),
    rows,
  };
  const results = targetResults(report);
  const lines = reportLines(report);
  const targets = targetLines(config.mode, results);
  console.log(`${lines.join('\n')}\n\n${targets.join('\n')}\n\n${report.elapsedSeconds} s`);
  const name = config.mode === 'quick' ? 'memory.quick.json' : 'memory.json';
  writeFileSync(new URL(`../results/${name}`, import.meta.url), `${JSON.stringify(report, null, 2)}\n`);
  if (config.mode === 'full') await writeDocsBlock('memory-results', docsBlock(report, lines, targets));
  if (runFails(config.mode, results)) process.exitCode = 1;
}

function embeddingOption() {
  return { model: benchEmbeddingModel(DIMS), minSimilarity: -1 };
}

// PostgreSQL puts are written 4 at a time (its pool's size); SQLite's run one after another whatever the caller does.
async function textRows(
  store: string,
  size: number,
  memory: MemoryStore,
  config: Config,
  concurrency = 1,
): Promise<Row> {
  const putsPerSecond = await load(size, (i) => memory.put(SCOPE, { kind: 'fact', text: entryText(i) }), concurrency);
  const selective = await checked(config.runs, async (i) => {
    const word = selectiveQuery(i, size);
    const found = await memory.query([SCOPE], { topK: 10, text: word });
    return found.length > 0 && found.every((entry) => entry.text.split(' ').includes(word));
  });
  const broad = await checked(
    config.runs,
    async () => (await memory.query([SCOPE], { topK: 10, text: broadQuery() })).length === 10,
  );
  return { store, kind: 'text', entries: size, putsPerSecond, selective, broad };
}

async function vectorRow(
  store: string,
  size: number,
  memory: MemoryStore,
  config: Config,
  concurrency = 1,
): Promise<Row> {
  const put = (i: number) => memory.put(SCOPE, { kind: 'fact', text: `vector entry ${i}` });
  const putsPerSecond = await load(size, put, concurrency);
  const vector = await checked(
    config.vectorRuns,
    async () => (await memory.query([SCOPE], { topK: 10, text: 'nothingmatches' })).length === 10,
  );
  return { store, kind: 'vector', entries: size, dims: DIMS, putsPerSecond, vector };
}

async function postgresRows(config: Config): Promise<Row[]> {
  const server = await startPostgres().catch((error: unknown) => {
    console.error(`PostgreSQL rows skipped: ${String(error)}`);
    return undefined;
  });
  if (server === undefined) return [];
  try {
    const text = await openPostgresMemoryStore({ connectionString: server.url, schema: 'text' });
    const rows = [await textRows('agency PostgreSQL', config.pgSize, text, config, 4)];
    await text.close();
    const vectors = await openPostgresMemoryStore({
      connectionString: server.url,
      schema: 'vec',
      embedding: embeddingOption(),
    });
    rows.push(await vectorRow('agency PostgreSQL', config.vectorSize, vectors, config, 4));
    await vectors.close();
    return rows;
  } finally {
    await server.stop();
  }
}

// LangGraph's InMemoryStore has no text search: its `query` is semantic, through an embedding index. It is timed on
// the vector queries, with the same vectors.
async function langGraphRow(config: Config): Promise<Row> {
  let next = 0;
  const embed = () => vectorFor(next++, DIMS);
  const embeddings = {
    embedDocuments: async (texts: string[]) => texts.map(embed),
    embedQuery: async () => embed(),
  };
  const store = new InMemoryStore({ index: { dims: DIMS, embeddings: embeddings as never } });
  const putsPerSecond = await load(config.vectorSize, (i) =>
    store.put(['bench'], `k${i}`, { text: `vector entry ${i}` }),
  );
  const vector = await checked(
    config.runs,
    async () => (await store.search(['bench'], { query: 'q', limit: 10 })).length === 10,
  );
  return {
    store: 'LangGraph InMemoryStore',
    kind: 'vector',
    entries: config.vectorSize,
    dims: DIMS,
    putsPerSecond,
    vector,
  };
}

async function checked(runs: number, query: (i: number) => Promise<boolean>): Promise<Latency> {
  return latency(runs, 3, async (i) => {
    if (!(await query(Math.abs(i)))) throw new Error('a benchmark query returned the wrong entries');
  });
}

function docsBlock(report: MemoryReport, lines: string[], targets: string[]): string {
  const { machine: host } = report;
  return [
    `Measured ${report.date.slice(0, 10)} on ${host.cpus} × ${host.cpuModel} (load average ${host.loadAverage1m}), ` +
      `Node ${host.node}, ${host.platform}. The whole run took ${report.elapsedSeconds} s.`,
    '',
    ...lines,
    '',
    ...targets.map((line) => `- ${line}`),
  ].join('\n');
}
