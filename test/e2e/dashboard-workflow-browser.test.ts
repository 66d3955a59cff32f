// A durable workflow run in the dashboard, in a real browser (Debian's Chromium, driven by playwright-core) against a
// real `agency serve`: the run is listed as a workflow, and its timeline nests each step's attempt (the branches that
// ran side by side marked parallel), the network step's delegations with their sub-agents' tool calls, and the step
// that suspended. With AGENCY_SCREENSHOTS=1 it saves the timeline to docs/images/workflow-timeline.png.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agencyRootAt } from '../../src/config/agency-root.ts';
import { createIdGenerator } from '../../src/core/ids.ts';
import { newsroomAnswers } from '../support/network-team.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';
import { type ServeProcess, startServeProcess } from '../support/serve-process.ts';
import { runDesk } from '../support/workflow-desk.ts';

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
let id: string;

beforeAll(async () => {
  if (!found) return;
  model = await startOpenAICompatibleServer(newsroomAnswers);
  data = await mkdtemp(join(tmpdir(), 'agency-browser-workflow-'));
  id = createIdGenerator()('task');
  await runDesk(join(agencyRootAt(data).tasks, id), { newsroomUrl: model.url });
  server = await startServeProcess(['--root', data, '--model', `openai-compatible:${model.url}#local-model`], TOKEN);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.kill('SIGTERM');
  model?.server.close();
  if (data) await rm(data, { recursive: true, force: true });
});

// The groups directly under `scope`, as "type label state[ parallel]".
async function groupsIn(scope: Locator): Promise<string[]> {
  return scope.evaluate((element) =>
    [...element.querySelectorAll(':scope > [data-testid="timeline-group"]')].map((group) =>
      [
        group.getAttribute('data-group-type'),
        group.getAttribute('data-label'),
        group.getAttribute('data-state'),
        group.getAttribute('data-parallel') === 'true' ? 'parallel' : '',
      ]
        .join(' ')
        .trim(),
    ),
  );
}

const group = (scope: Locator | import('playwright-core').Page, label: string) =>
  scope.locator(`[data-testid="timeline-group"][data-label="${label}"]`);

describe.skipIf(!found)('a workflow run in the dashboard, in Chromium', () => {
  it('is listed as a workflow, and its timeline nests steps, parallel branches and a network delegation', async () => {
    const context = await browser.newContext({ viewport: { width: 1360, height: 1500 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/?token=${TOKEN}`);
    const row = page.locator(`[data-testid="task-row"][data-task-id="${id}"]`);
    await row.waitFor();
    expect(await row.getByTestId('task-kind').textContent()).toBe('workflow');
    expect(await row.getAttribute('data-status')).toBe('completed');

    await page.goto(`${server.url}/tasks/${id}`);
    await page.getByTestId('stream-state').and(page.locator('[data-state="ended"]')).waitFor({ timeout: 20_000 });
    const list = page.getByTestId('timeline-list');
    expect(await groupsIn(list)).toEqual([
      'step intake done',
      'step weather done parallel',
      'step triage done parallel',
      'step newsroom done parallel',
      'step approve suspended',
      'step approve done',
      'step reply done',
    ]);
    // The network step holds its two delegations; the researcher's holds its tool call and its answer.
    const newsroom = group(list, 'newsroom').locator(':scope > [data-testid="timeline-group-children"]');
    expect(await groupsIn(newsroom)).toEqual(['agent newsroom › researcher done', 'agent newsroom › writer done']);
    const researcher = group(newsroom, 'newsroom › researcher');
    const nested = await researcher
      .locator('[data-testid="timeline-entry"]')
      .evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-type')));
    expect(nested).toEqual(['agent.start', 'agent.event', 'agent.event', 'agent.finish']);
    expect(await researcher.locator(':scope > .tl-group-head').textContent()).toMatch(/depth 1.*300 tokens.*done/);
    // A workflow run is resumed by its own code: the page offers no stop or resume.
    expect(await page.getByTestId('task-stop').count()).toBe(0);
    expect(await page.getByTestId('task-resume').count()).toBe(0);

    if (SHOTS) {
      // The whole timeline in one picture, rather than the scrolled box a reader sees.
      await page.addStyleTag({ content: '.timeline-scroll { max-height: none; }' });
      await page.waitForTimeout(300);
      await page.getByTestId('timeline').screenshot({ path: join(SHOTS, 'workflow-timeline.png') });
    }
    // A group folds: its frames leave the page, its header stays.
    await researcher.locator(':scope > .tl-group-head').click();
    expect(await researcher.locator('[data-testid="timeline-entry"]').count()).toBe(0);
    expect(await researcher.getAttribute('data-state')).toBe('done');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);
});
