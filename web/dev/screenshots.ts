// Drives the dashboard against the fake API in Debian's Chromium: logs in, walks every page, checks the live
// timeline survives dropped streams without gaps or duplicates, decides approvals, submits a task with a file and
// follows it to its deliverable, and saves screenshots to web/screenshots/.
//
//   npm run build && FAKE_DROP_MS=4000 node dev/fake-api.ts &  node dev/screenshots.ts
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

const BASE = process.env['FAKE_URL'] ?? 'http://127.0.0.1:8787';
const TOKEN = process.env['FAKE_TOKEN'] ?? 'dev-token';
const OUT = join(import.meta.dirname, '..', 'screenshots');

function check(condition: unknown, message: string): void {
  if (!condition) throw new Error(`check failed: ${message}`);
  console.log(`ok - ${message}`);
}

// A full page is shot by growing the window to the page's height: a sticky nav bar then stays at the top.
async function shot(page: Page, name: string, fullPage = true): Promise<void> {
  const viewport = page.viewportSize()!;
  if (fullPage) {
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.setViewportSize({ width: viewport.width, height: Math.min(height, 4_000) });
  }
  await page.screenshot({ path: join(OUT, `${name}.png`) });
  if (fullPage) await page.setViewportSize(viewport);
  console.log(`   saved screenshots/${name}.png`);
}

async function seqs(page: Page): Promise<number[]> {
  return page.$$eval('[data-testid="timeline-entry"]', (nodes) =>
    nodes.map((node) => Number(node.getAttribute('data-seq'))),
  );
}

await mkdir(OUT, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env['CHROMIUM'] ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const context = await browser.newContext({
  viewport: { width: 1440, height: 900 },
  deviceScaleFactor: 1,
  acceptDownloads: true,
});
const page = await context.newPage();
page.on('pageerror', (error) => console.error('page error:', error.message));

// Login: a wrong token is refused in words, the right one opens the task list.
await page.goto(`${BASE}/`);
await page.getByTestId('login-form').waitFor();
await page.getByTestId('login-token').fill('wrong');
await page.getByTestId('login-submit').click();
await page.getByTestId('login-error').waitFor();
check(
  (await page.getByTestId('login-error').textContent())?.includes('not valid'),
  'a bad token shows the server message',
);
await shot(page, 'login', false);
await page.getByTestId('login-token').fill(TOKEN);
await page.getByTestId('login-submit').click();
await page.getByTestId('task-row').first().waitFor();
check((await page.getByTestId('task-row').count()) === 25, 'the task list shows a page of 25');
await shot(page, 'tasks');

// Filters and pages.
await page.getByTestId('filter-chip-stuck').click();
await page.waitForURL(/status=stuck/);
await page.waitForFunction(() => document.querySelectorAll('[data-testid="task-row"]').length < 10);
const stuck = await page.$$eval('[data-testid="task-row"]', (rows) =>
  rows.map((row) => row.getAttribute('data-status')),
);
check(stuck.length > 0 && !stuck.includes('completed'), `the stuck filter lists stuck tasks (${stuck.join(', ')})`);
await page.getByTestId('filter-chip-all').click();
await page.getByTestId('tasks-next').click();
await page.waitForFunction(() => document.querySelector('[data-testid="tasks-page-number"]')?.textContent === 'Page 2');
await page.getByTestId('task-row').first().waitFor();
check((await page.getByTestId('task-row').count()) < 25, 'the next page has the older tasks');
await page.getByTestId('tasks-prev').click();

// The live task: frames arrive, the stream drops and comes back, nothing is missing or repeated.
await page.locator('[data-testid="task-row"][data-status="running"]').first().getByTestId('task-link').click();
await page.getByTestId('timeline-entry').first().waitFor();
await page.getByTestId('timeline-show-quiet').check();
await page.getByTestId('reconnecting').waitFor({ timeout: 20_000 });
await shot(page, 'task-reconnecting', false);
check(true, 'the reconnecting state shows while the stream is down');
const before = (await seqs(page)).length;
// Wait until the fake has both dropped a stream the browser resumed and refused one the page had to reopen.
let streams: Record<string, number> = {};
for (let waited = 0; waited < 60_000; waited += 1_000) {
  streams = (await (await fetch(`${BASE}/__fake/streams`)).json()) as Record<string, number>;
  if (streams['refused']! > 0 && streams['reopenedWithAfter']! > 0) break;
  await page.waitForTimeout(1_000);
}
check(streams['resumedWithLastEventId']! > 0, `the browser resumed with Last-Event-ID (${JSON.stringify(streams)})`);
check(streams['reopenedWithAfter']! > 0, 'after a refused reconnect the page reopened with ?after=');
await page.waitForFunction(
  () => document.querySelector('[data-testid="stream-state"]')?.getAttribute('data-state') === 'live',
  undefined,
  { timeout: 20_000 },
);
await page.waitForTimeout(2_000);
const all = await seqs(page);
check(all.length > before, `frames keep arriving after reconnects (${before} → ${all.length})`);
check(new Set(all).size === all.length, 'no frame is shown twice');
check(
  all.every((seq, index) => seq === index + 1),
  `seqs run 1..${all.length} without gaps`,
);
await page.getByTestId('timeline-show-quiet').uncheck();
await page.evaluate(() => scrollTo(0, 0));
await shot(page, 'task');
await page.getByTestId('plan-diff-tab').click();
await page.getByTestId('plan-diff-lines').waitFor();
await page.getByTestId('plan-card').scrollIntoViewIfNeeded();
await page.getByTestId('plan-card').screenshot({ path: join(OUT, 'plan-diff.png') });
console.log('   saved screenshots/plan-diff.png');

// The inbox: expired and stale requests cannot be decided; approve one plan, deny one tool call.
await page.getByTestId('nav-approvals').click();
await page.getByTestId('approval').first().waitFor();
await shot(page, 'approvals');
for (const state of ['expired', 'stale']) {
  const id = await page
    .locator(`[data-testid="approval"][data-state="${state}"]`)
    .first()
    .getAttribute('data-request-id');
  check(id && (await page.getByTestId(`approve-${id}`).isDisabled()), `a ${state} request cannot be approved`);
}
const tool = await page
  .locator('[data-testid="approval"][data-state="pending"][data-type="tool"]')
  .first()
  .getAttribute('data-request-id');
await page.getByTestId(`approval-reason-${tool}`).fill('Not with NPM_TOKEN in the environment.');
await page.getByTestId(`deny-${tool}`).click();
await page.getByTestId('approval-notice').waitFor();
check(
  (await page.getByTestId('approval-notice').textContent())?.includes('denied'),
  'denying a tool call is confirmed',
);
const plan = await page
  .locator('[data-testid="approval"][data-state="pending"][data-type="plan"]')
  .first()
  .getAttribute('data-request-id');
await page.getByTestId(`approve-${plan}`).click();
await page.waitForFunction((id) => !document.querySelector(`[data-request-id="${id}"][data-state="pending"]`), plan);
check(true, 'approving a plan takes it out of the pending requests');

// A new task with a file: held, uploaded, started; its plan approved from the inbox; its deliverable downloaded.
await page.getByTestId('nav-new').click();
await page.getByTestId('newtask-brief').fill('# Write a haiku about durable journals\n\nThree lines, no more.');
await page.getByTestId('newtask-files').setInputFiles({
  name: 'notes.md',
  mimeType: 'text/markdown',
  buffer: Buffer.from('# Notes\n\nfsync all the things\n'),
});
await page.getByTestId('newtask-budget-max-iterations').fill('12');
await page.getByTestId('newtask-budget-max-cost').fill('0.50');
await shot(page, 'new-task');
await page.getByTestId('newtask-submit').click();
await page.waitForURL(/\/tasks\/task_/);
const taskId = page.url().split('/').pop()!;
check((await page.getByTestId('brief').textContent())?.includes('notes.md'), 'the uploaded file is listed on the task');
await page.getByTestId('task-approvals').waitFor({ timeout: 30_000 });
await page.getByTestId('nav-approvals').click();
const request = await page
  .locator(`[data-testid="approval"][data-state="pending"]:has([data-testid="approval-task-link"][href$="${taskId}"])`)
  .getAttribute('data-request-id');
await page.getByTestId(`approve-${request}`).click();
await page.getByTestId('approval-notice').waitFor();
await page.goto(`${BASE}/tasks/${taskId}`);
await page.getByTestId('deliverable-link').first().waitFor({ timeout: 40_000 });
await page.getByTestId('stream-state').and(page.locator('[data-state="ended"]')).waitFor();
const download = page.waitForEvent('download');
await page.getByTestId('deliverable-link').first().click();
check((await download).suggestedFilename() === 'result.md', 'the deliverable downloads');
await shot(page, 'task-finished');

// Stop and resume, with the server's answer shown.
await page.getByTestId('nav-tasks').click();
await page.getByTestId('filter-chip-stuck').click();
await page.locator('[data-testid="task-row"][data-status="interrupted"]').first().getByTestId('task-link').click();
await page.getByTestId('task-resume').click();
await page.getByTestId('task-notice').waitFor();
check(
  (await page.getByTestId('task-page').getAttribute('data-status')) !== 'interrupted',
  'resume restarts an interrupted task',
);
await page.getByTestId('task-stop').click();
await page.waitForFunction(
  () => document.querySelector('[data-testid="task-page"]')?.getAttribute('data-status') === 'stopped',
);
check(true, 'stop stops it');

// Narrow screens.
const phone = await context.newPage();
await phone.setViewportSize({ width: 390, height: 844 });
await phone.goto(`${BASE}/`);
await phone.getByTestId('task-row').first().waitFor();
await shot(phone, 'tasks-mobile', false);

await browser.close();
console.log('all checks passed');
