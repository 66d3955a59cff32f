import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { writeDocsBlock } from '../docs-block.ts';
import { runFails, targetLines } from '../journal/report.ts';
import { machine } from '../machine.ts';
import type { MemoryStore } from '../../src/memory/memory-store.ts';
import { putMany } from '../../src/memory/put-many.ts';
import { openPostgresMemoryStore } from '../../src/memory/stores/postgres/postgres-memory-store.ts';
import { openSqliteMemoryStore } from '../../src/memory/stores/sqlite/sqlite-memory-store.ts';
import { startPostgres } from '../../test/support/postgres.ts';
import { benchEmbeddingModel, broadQuery, entryText, selectiveQuery } from './data.ts';
import { inMemoryTextRow, inMemoryVectorRow, postgresTextRow } from './langgraph.ts';
import { checked, load } from './measure.ts';
import { type MemoryReport, reportLines, type Row, targetResults } from './report.ts';

const HELP = `npm run bench -- memory [--quick]

  --quick   bounded run for CI (2,000 entries instead of 100,000 and 1,000,000, and 500 instead of 10,000 on PGlite);
            it fails if a query returns the wrong thing, and reports a missed timing target without failing
A full run fails on any missed target, and rewrites the memory results section of docs/benchmarks.md.`;

const FULL = {
  mode: 'full',
  ftsSizes: [100_000, 1_000_000],
  vectorSize: 100_000,
  pgSize: 100_000,
  pgliteSize: 10_000,
  runs: 200,
  vectorRuns: 50,
  peerRuns: 20,
} as const;
const QUICK = {
  mode: 'quick',
  ftsSizes: [2_000],
  vectorSize: 2_000,
  pgSize: 2_000,
  pgliteSize: 500,
  runs: 30,
  vectorRuns: 20,
  peerRuns: 10,
} as const;
type Config = typeof FULL | typeof QUICK;
const DIMS = 768;
// Entries per putMany: each batch is one transaction.
const BATCH = 5_000;
const SCOPE = { kind: 'agent', id: 'bench' } as const;

/** The memory benchmark: text and vector recall in the SQLite and PostgreSQL stores, beside LangGraph's stores. */
export async function main(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { quick: { type: 'boolean', default: false }, help: { type: 'boolean', default: false } },
  });
  if (values.help) return void console.log(HELP);
  const config: Config = values.quick ? QUICK : FULL;
  const started = performance.now();
  const loadAtStart = machine().loadAverage1m;
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
    rows.push(await inMemoryTextRow(config.ftsSizes[0], config.runs));
    rows.push(await inMemoryVectorRow(config.vectorSize, DIMS, config.vectorRuns));
    rows.push(...(await postgresRows(config)));
    rows.push(...(await pgliteRows(config)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const report: MemoryReport = {
    benchmark: 'memory',
    mode: config.mode,
    date: new Date().toISOString(),
    elapsedSeconds: Number(((performance.now() - started) / 1000).toFixed(1)),
    machine: machine(),
    loadAtStart,
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

// Entries are loaded through putMany in batches; PostgreSQL's batches go 2 at a time, SQLite's one after another
// (one writer per file whatever the caller does).
async function textRows(
  store: string,
  size: number,
  memory: MemoryStore,
  config: Config,
  concurrency = 1,
): Promise<Row> {
  const putsPerSecond = await load(
    size,
    BATCH,
    (from, to) =>
      putMany(
        memory,
        SCOPE,
        Array.from({ length: to - from }, (_, j) => ({ kind: 'fact', text: entryText(from + j) })),
      ),
    concurrency,
  );
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
  const putsPerSecond = await load(
    size,
    BATCH,
    (from, to) =>
      putMany(
        memory,
        SCOPE,
        Array.from({ length: to - from }, (_, j) => ({ kind: 'fact', text: `vector entry ${from + j}` })),
      ),
    concurrency,
  );
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
    const rows = [await textRows('agency PostgreSQL', config.pgSize, text, config, 2)];
    await text.close();
    const vectors = await openPostgresMemoryStore({
      connectionString: server.url,
      schema: 'vec',
      embedding: embeddingOption(),
    });
    rows.push(await vectorRow('agency PostgreSQL', config.vectorSize, vectors, config, 2));
    await vectors.close();
    rows.push(await postgresTextRow(server.url, config.pgSize, config.peerRuns));
    return rows;
  } finally {
    await server.stop();
  }
}

// pgvector is not in Debian's PostgreSQL 15, so the server rows search vectors in process; PGlite (PostgreSQL in
// WebAssembly) has pgvector's `vector` extension, so the pgvector path is timed there, as a row of its own.
async function pgliteRows(config: Config): Promise<Row[]> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const db = await PGlite.create({ extensions: { vector } });
  const pool = new pg.Pool(createPgConfig(db));
  try {
    const store = await openPostgresMemoryStore({ pool, embedding: embeddingOption() });
    if (store.vectorSearch !== 'pgvector') throw new Error('PGlite did not enable pgvector');
    return [await vectorRow('agency PGlite, pgvector', config.pgliteSize, store, config)];
  } catch (error) {
    console.error(`PGlite row skipped: ${String(error)}`);
    return [];
  } finally {
    await pool.end();
    await db.close();
  }
}

function docsBlock(report: MemoryReport, lines: string[], targets: string[]): string {
  const { machine: host } = report;
  return [
    `Measured ${report.date.slice(0, 10)} on ${host.cpus} × ${host.cpuModel} (load average ${report.loadAtStart} at the start, ${host.loadAverage1m} at the end), ` +
      `Node ${host.node}, ${host.platform}. The whole run took ${report.elapsedSeconds} s.`,
    '',
    ...lines,
    '',
    ...targets.map((line) => `- ${line}`),
  ].join('\n');
}
