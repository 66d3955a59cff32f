// The dashboard in a real browser (Debian's Chromium, driven by playwright-core) against a real `agency serve`
// process: log in, submit a task with a file, watch its events arrive live, approve its plan from the inbox, see it
// finish and download the deliverable; deny another; kill the server mid-run, restart it, and see the page reconnect
// and the run continue. With AGENCY_SCREENSHOTS=1 it also saves the pages to docs/images/.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const found = existsSync(CHROMIUM);
if (!found)
  console.warn(`dashboard browser tests skipped: no Chromium at ${CHROMIUM} (bash scripts/ensure-chromium.sh)`);
const TOKEN = 'browser-token-0123456789abcdef';
const SHOTS = process.env.AGENCY_SCREENSHOTS === '1' ? join(import.meta.dirname, '../../docs/images') : undefined;

let model: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
let browser: Browser;
let server: ServeProcess;
let data: string;
let port: number;

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port: chosen } = probe.address() as { port: number };
      probe.close(() => resolve(chosen));
    });
  });

const serve = () =>
  startServeProcess(
    ['--root', data, '--port', String(port), '--model', `openai-compatible:${model.url}#local-model`],
    TOKEN,
  );

async function shot(page: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  if (!found) return;
  model = await startOpenAICompatibleServer();
  data = await mkdtemp(join(tmpdir(), 'agency-browser-'));
  port = await freePort();
  server = await serve();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
  model?.server.close();
});

async function openPage(): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, acceptDownloads: true });
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error('page error:', error.message));
  return page;
}

async function newTask(page: Page, brief: string): Promise<string> {
  await page.getByTestId('nav-new').click();
  await page.getByTestId('newtask-brief').fill(brief);
  await page.getByTestId('newtask-files').setInputFiles({
    name: 'input.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('Agency runs governed agents. They plan, ask, act and verify.\n'),
  });
  await shot(page, 'new-task');
  await page.getByTestId('newtask-submit').click();
  await page.waitForURL(/\/tasks\/task_[0-9A-Z]{26}/);
  await page.getByTestId('task-page').waitFor();
  return /task_[0-9A-Z]{26}/.exec(page.url())![0];
}

async function decideFromInbox(page: Page, taskId: string, decision: 'approve' | 'deny', reason?: string) {
  await page.getByTestId('nav-approvals').click();
  await page.getByTestId('approval').first().waitFor({ timeout: 20_000 });
  const request = await page.evaluate(async (id) => {
    const inbox = (await (await fetch('/agent/approvals')).json()) as {
      items: Array<{ task_id: string; request: { id: string } }>;
    };
    return inbox.items.find((item) => item.task_id === id)?.request.id;
  }, taskId);
  expect(request).toBeTruthy();
  await page.locator(`[data-testid="approval"][data-request-id="${request}"]`).waitFor();
  if (reason) await page.getByTestId(`approval-reason-${request}`).fill(reason);
  await shot(page, 'approvals');
  await page.getByTestId(`${decision}-${request}`).click();
  await page.getByTestId('approval-notice').waitFor();
}

async function openTask(page: Page, id: string): Promise<void> {
  await page.goto(`${server.url}/tasks/${id}`);
  await page.getByTestId('task-page').waitFor();
}

const statusOf = (page: Page) => page.getByTestId('task-page').getAttribute('data-status');

describe.skipIf(!found)('the dashboard in Chromium', () => {
  it('logs in, runs a task with approval from the inbox, and downloads its deliverable', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/?token=${TOKEN}`);
    await page.getByTestId('nav-tasks').waitFor();
    expect(page.url()).not.toContain('token');

    const id = await newTask(
      page,
      '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n',
    );
    // Live: the timeline fills while the run waits for its plan's approval.
    await page.getByTestId('timeline-entry').first().waitFor({ timeout: 20_000 });
    await page.waitForFunction(
      () => document.querySelector('[data-testid="task-page"]')?.getAttribute('data-status') === 'waiting_approval',
      null,
      { timeout: 20_000 },
    );
    await shot(page, 'task-waiting');
    await decideFromInbox(page, id, 'approve');

    await openTask(page, id);
    await page.getByTestId('deliverable-link').first().waitFor({ timeout: 30_000 });
    expect(await statusOf(page)).toBe('completed');
    await page.getByTestId('stream-state').and(page.locator('[data-state="ended"]')).waitFor();
    await shot(page, 'task');
    const download = page.waitForEvent('download');
    await page.getByTestId('deliverable-link').first().click();
    const file = await (await download).path();
    expect(await readFile(file, 'utf8')).toContain('Agency runs governed agents');
  }, 90_000);

  it('denies a plan from the inbox with a reason', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/?token=${TOKEN}`);
    const id = await newTask(page, '# Another summary\n\nSummarise task/input.txt again.\n');
    await page.waitForFunction(
      () => document.querySelector('[data-testid="task-page"]')?.getAttribute('data-status') === 'waiting_approval',
      null,
      { timeout: 20_000 },
    );
    await decideFromInbox(page, id, 'deny', 'Not this week.');
    await openTask(page, id);
    await page.waitForFunction(
      () => document.querySelector('[data-testid="task-page"]')?.getAttribute('data-status') === 'stopped',
      null,
      { timeout: 20_000 },
    );
    const decision = JSON.parse(
      await readFile(join(data, 'tasks', id, 'progress', 'approvals', 'decisions', (await requestOf(id))!), 'utf8'),
    ) as { decision: string; reason: string; approved_by: string };
    expect(decision).toMatchObject({ decision: 'denied', reason: 'Not this week.', approved_by: 'operator' });
  }, 60_000);

  it('reconnects after the server is killed and restarted, and the run goes on to its end', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/?token=${TOKEN}`);
    const id = await newTask(page, '# Survive a restart\n\nSummarise task/input.txt into artifacts/summary.md.\n');
    await page.waitForFunction(
      () => document.querySelector('[data-testid="task-page"]')?.getAttribute('data-status') === 'waiting_approval',
      null,
      { timeout: 20_000 },
    );
    const before = await page.getByTestId('timeline-entry').count();
    await server.kill('SIGKILL');
    await page.getByTestId('reconnecting').waitFor({ timeout: 20_000 });
    await shot(page, 'task-reconnecting');
    server = await serve();
    // The restarted server resumes the run; approving it over the API lets it finish while the page watches.
    const request = await until(() => requestOf(id));
    const decided = await server.api(`/agent/approvals/${request.replace(/\.json$/, '')}/decision`, {
      method: 'POST',
      json: { decision: 'approved' },
    });
    expect(decided.status).toBe(200);
    // The frames the resumed run writes reach the page through its reconnected stream, up to the run's finish.
    await page.locator('[data-testid="timeline-entry"][data-type="finish"]').waitFor({ timeout: 40_000 });
    await page.getByTestId('stream-state').and(page.locator('[data-state="ended"]')).waitFor({ timeout: 40_000 });
    await page.waitForFunction(
      () => document.querySelector('[data-testid="task-page"]')?.getAttribute('data-status') === 'completed',
      null,
      { timeout: 20_000 },
    );
    const seqs = await page.$$eval('[data-testid="timeline-entry"]', (nodes) =>
      nodes.map((node) => Number(node.getAttribute('data-seq'))),
    );
    expect(seqs.length).toBeGreaterThan(before);
    expect(new Set(seqs).size).toBe(seqs.length);
  }, 120_000);

  it('lists every task with its status, and filters them', async () => {
    const page = await openPage();
    await page.goto(`${server.url}/?token=${TOKEN}`);
    await page.getByTestId('task-row').nth(2).waitFor();
    const statuses = await page.$$eval('[data-testid="task-row"]', (rows) =>
      rows.map((row) => row.getAttribute('data-status')),
    );
    expect(statuses.sort()).toEqual(['completed', 'completed', 'stopped']);
    await shot(page, 'tasks');
    await page.getByTestId('filter-chip-waiting_approval').click();
    await page.waitForURL(/status=waiting_approval/);
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="task-row"]').length === 0);
  }, 30_000);
});

async function requestOf(id: string): Promise<string | undefined> {
  const response = await fetch(`${server.url}/agent/tasks/${id}`, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (!response.ok) return undefined;
  const detail = (await response.json()) as { approvals: Array<{ request: { id: string } }> };
  const last = detail.approvals.at(-1)?.request.id;
  return last ? `${last}.json` : undefined;
}

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
