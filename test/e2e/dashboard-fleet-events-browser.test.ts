// The dashboard's Fleet page in a real browser (Debian's Chromium, driven by playwright-core) against a real
// `agency serve` on a real PostgreSQL, with a queue-mode `agency worker` (its own data root, the scripted executor):
// a task dispatched to the queue shows in the fleet's task list, and opened, its events arrive on the timeline live,
// as the worker writes them to the database.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgFleet, startPgFleet } from '../support/pg-fleet.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const found = existsSync(CHROMIUM);
if (!found)
  console.warn(
    `dashboard fleet events browser test skipped: no Chromium at ${CHROMIUM} (bash scripts/ensure-chromium.sh)`,
  );
const TOKEN = 'fleet-events-browser-token-0123456789';

let browser: Browser;
let fleet: PgFleet;
let server: ServeProcess;
let root: string;

beforeAll(async () => {
  if (!found) return;
  fleet = await startPgFleet();
  await fleet.startWorker('remote-b');
  root = await mkdtemp(join(tmpdir(), 'agency-fleet-events-browser-'));
  server = await startServeProcess(
    ['--root', root, '--model', 'openai-compatible:http://127.0.0.1:9/v1#unused', '--fleet-ports', 'none'],
    TOKEN,
    { AGENCY_DATABASE_URL: fleet.pg.url },
  );
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
  await fleet?.close();
  if (root) await rm(root, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!found)('a remote task on the Fleet page in Chromium', () => {
  it('lists the task and shows its events on the timeline as the remote worker writes them', async () => {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/?token=${TOKEN}`);
    await page.getByTestId('nav-fleet').click();
    await page.getByTestId('fleet-tasks').waitFor();

    // The task holds its last step until the test opens its gate, so it is still running when the page looks.
    const gate = join(root, 'gate');
    const task = await fleet.dispatch.dispatch({ prompt: `steps 24 200 ${gate}` });
    const row = page.locator(`[data-testid="fleet-tasks-row"][data-task-id="${task.task_id}"]`);
    // The list is read every 2 s: the row may first show the task still queued, before its worker took it.
    await row.filter({ hasText: 'remote-b' }).waitFor({ timeout: 20_000 });
    await row.getByTestId('fleet-tasks-open').click();

    const timeline = page.getByTestId('fleet-task-timeline');
    await timeline.waitFor();
    // The first steps arrive while the task still runs (held at its last step), then the rest, up to the turn's end.
    await timeline
      .locator('[data-testid="timeline-entry"][data-type="tool.call"]')
      .first()
      .waitFor({ timeout: 20_000 });
    const finish = timeline.locator('[data-testid="timeline-entry"][data-type="finish"]');
    expect(await finish.count()).toBe(0);
    await writeFile(gate, '');
    await finish.waitFor({ timeout: 30_000 });
    const calls = await timeline
      .locator('[data-testid="timeline-entry"][data-type="tool.call"] .tl-message')
      .allTextContents();
    expect(calls).toEqual(Array.from({ length: 24 }, (_, index) => `tool Step: {"step":${index + 1}}`));
    // Each row of the database once, in order.
    const seqs = (
      await timeline
        .locator('[data-testid="timeline-entry"]')
        .evaluateAll((entries) => entries.map((entry) => Number(entry.getAttribute('data-seq'))))
    ).filter((seq) => seq > 0);
    const { rows } = await fleet.db.pool.query<{ seq: string }>(
      'SELECT seq FROM agency.task_history WHERE task_id = $1 ORDER BY seq',
      [task.task_id],
    );
    expect(seqs).toEqual(rows.map((each) => Number(each.seq)));
    expect(await row.getAttribute('data-state')).not.toBe('queued');
    expect(errors).toEqual([]);
    await context.close();
    await fleet.dispatch.end(task);
  }, 120_000);
});
