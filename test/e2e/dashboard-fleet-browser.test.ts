// The dashboard's Fleet page in a real browser (Debian's Chromium, driven by playwright-core) against a real
// `agency serve` whose fleet is two real `agency worker` processes (the scripted executor): both cards seen, a busy
// worker's form disabled, a task sent to the idle one and watched to its session's idle turn, continued, ended, its
// history expanded, and a killed worker going yellow, then red. With AGENCY_SCREENSHOTS=1 it saves
// docs/images/dashboard-fleet.png.
import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';
import { startWorkerProcess, type WorkerProcess, workerRoot } from '../support/worker-process.ts';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const found = existsSync(CHROMIUM);
if (!found)
  console.warn(`dashboard fleet browser tests skipped: no Chromium at ${CHROMIUM} (bash scripts/ensure-chromium.sh)`);
const TOKEN = 'fleet-browser-token-0123456789abcdef';
const SHOTS = process.env.AGENCY_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs/images') : undefined;
const CONFIG = 'port: 9000\nexecutor: claude\nmodel: sonnet\n';

let browser: Browser;
let server: ServeProcess;
let alpha: WorkerProcess;
let beta: WorkerProcess;

beforeAll(async () => {
  if (!found) return;
  [alpha, beta] = await Promise.all([
    workerRoot('alpha', CONFIG).then((root) => startWorkerProcess('alpha', root)),
    workerRoot('beta', CONFIG).then((root) => startWorkerProcess('beta', root)),
  ]);
  const data = await mkdtemp(join(tmpdir(), 'agency-fleet-browser-'));
  server = await startServeProcess(
    // The server's own runs are not used here: its model is never called.
    ['--root', data, '--model', 'openai-compatible:http://127.0.0.1:9/v1#unused', '--fleet-ports', 'none'].concat([
      '--fleet-worker',
      alpha.url,
      '--fleet-worker',
      beta.url,
    ]),
    TOKEN,
  );
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
  await Promise.all([alpha?.kill('SIGTERM'), beta?.kill('SIGTERM')]);
});

const card = (page: Page, name: string) => page.locator(`[data-testid="fleet-card"][data-name="${name}"]`);
const withState = (locator: Locator, state: string) => locator.and(locator.page().locator(`[data-state="${state}"]`));

describe.skipIf(!found)('the Fleet page in Chromium', () => {
  it('runs a session on the idle worker, keeps the busy one’s form shut, and shows a killed worker go red', async () => {
    const context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => console.error('page error:', error.message));
    await page.goto(`${server.url}/?token=${TOKEN}`);
    await page.getByTestId('nav-fleet').click();
    await page.getByTestId('fleet-page').waitFor();
    await withState(card(page, 'alpha'), 'idle').waitFor({ timeout: 20_000 });
    await withState(card(page, 'beta'), 'idle').waitFor({ timeout: 20_000 });
    expect(await card(page, 'alpha').getByTestId('fleet-health').textContent()).toContain('Healthy');
    expect(await card(page, 'alpha').getByTestId('fleet-executor').textContent()).toBe('claude');

    // Busy: a task sent to beta through the API shows on its card, and its form is shut.
    const busy = await server.api('/agent/fleet/workers/beta/tasks', { method: 'POST', json: { prompt: 'hang' } });
    expect(busy.status).toBe(201);
    await withState(card(page, 'beta'), 'working').waitFor({ timeout: 20_000 });
    expect(await card(page, 'beta').getByTestId('fleet-current-task').textContent()).toContain('hang');
    expect(await card(page, 'beta').getByTestId('fleet-task-submit').isDisabled()).toBe(true);
    expect(await card(page, 'beta').getByTestId('fleet-task-prompt').isDisabled()).toBe(true);
    expect(await card(page, 'beta').getByTestId('fleet-task-disabled').textContent()).toContain('working');

    // A session on alpha: sent from its form, followed to its idle turn, continued, ended.
    const a = card(page, 'alpha');
    await a.getByTestId('fleet-task-prompt').fill('write first.txt');
    await a.getByTestId('fleet-task-timeout').fill('60');
    await a.getByTestId('fleet-task-submit').click();
    await withState(a.getByTestId('fleet-task'), 'idle').waitFor({ timeout: 20_000 });
    expect(await a.getByTestId('fleet-task-output').textContent()).toBe('files: first.txt; resume=false');
    expect(await a.getByTestId('fleet-task-log').textContent()).toContain('scripted executor: write');
    await a.getByTestId('fleet-continue-prompt').fill('write second.txt');
    await a.getByTestId('fleet-continue').click();
    await a.getByTestId('fleet-task-output').filter({ hasText: 'resume=true' }).waitFor({ timeout: 20_000 });
    expect(await a.getByTestId('fleet-task').getAttribute('data-state')).toBe('idle');
    await a.getByTestId('fleet-end').click();
    await withState(a.getByTestId('fleet-task'), 'completed').waitFor({ timeout: 20_000 });
    expect(await a.getByTestId('fleet-continue').count()).toBe(0);

    // Its history, expanded: the session, completed.
    await a.getByTestId('fleet-history-toggle').click();
    await withState(a.getByTestId('fleet-history-item'), 'completed').first().waitFor({ timeout: 20_000 });
    expect(await a.getByTestId('fleet-history-item').first().textContent()).toContain('write first.txt');
    if (SHOTS) {
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(SHOTS, 'dashboard-fleet.png'), fullPage: true });
    }

    // Killed: beta misses its polls (yellow), then is unreachable (red), its last state kept, in words too.
    // Every health the card shows is recorded, so a yellow shown for a second or two is seen.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { healths: string[] }).healths = seen;
      const note = () => {
        const health = document
          .querySelector('[data-testid="fleet-card"][data-name="beta"]')
          ?.getAttribute('data-health');
        if (health && seen.at(-1) !== health) seen.push(health);
      };
      note();
      new MutationObserver(note).observe(document.body, { subtree: true, attributes: true, childList: true });
    });
    await beta.kill('SIGKILL');
    await card(page, 'beta').and(page.locator('[data-health="red"]')).waitFor({ timeout: 40_000 });
    expect(await page.evaluate(() => (window as unknown as { healths: string[] }).healths)).toEqual([
      'green',
      'yellow',
      'red',
    ]);
    expect(await card(page, 'beta').getByTestId('fleet-health').textContent()).toContain('Unreachable');
    expect(await card(page, 'beta').getAttribute('data-state')).toBe('working');
    expect(await card(page, 'beta').getByTestId('fleet-task-submit').isDisabled()).toBe(true);
    expect(await card(page, 'alpha').getAttribute('data-health')).toBe('green');
  }, 120_000);
});
