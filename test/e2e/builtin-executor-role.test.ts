// A worker's role reaches the built-in executor's `agency run`: its persona in every model call, from the data root's
// roles; an unknown role fails the executor's check before it takes a task.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBuiltinExecutor } from '../../src/fleet/executors/builtin/builtin-executor.ts';
import { createBwrapSandbox } from '../../src/sandbox/bwrap-sandbox.ts';
import { checkSandbox } from '../../src/sandbox/check-sandbox.ts';
import { createSessionArea, executorRequest } from '../support/executor-fixture.ts';
import { startOpenAICompatibleServer, summariseAnswers, textOf } from '../support/openai-compatible-server.ts';

const sandbox = createBwrapSandbox();
const status = await checkSandbox(sandbox);
const skip = status.ok ? '' : status.error.message;

let local: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
let agencyRoot: string;
const systems: string[] = [];
beforeAll(async () => {
  local = await startOpenAICompatibleServer((phase, turn, messages) => {
    systems.push(messages[0] ? textOf(messages[0]) : '');
    return summariseAnswers(phase, turn, messages);
  });
  agencyRoot = await mkdtemp(join(tmpdir(), 'agency-root-'));
  await mkdir(join(agencyRoot, 'roles'));
  await writeFile(join(agencyRoot, 'roles', 'summariser.yaml'), 'description: S\npersona: You are summariser-5.\n');
});
afterAll(async () => {
  local.server.close();
  await rm(agencyRoot, { recursive: true, force: true });
});

let area: ReturnType<typeof createSessionArea>;
beforeEach(() => {
  area = createSessionArea();
});
afterEach(() => area.cleanup());

describe.skipIf(skip !== '')(`the built-in executor with a role${skip ? ` (skipped: ${skip})` : ''}`, () => {
  it("runs with the role's persona", async () => {
    const model = `openai-compatible:${local.url}#local-model`;
    const executor = createBuiltinExecutor({ model, approvals: 'auto', sandbox, role: 'summariser', agencyRoot });
    const sessionId = randomUUID();
    const { request } = executorRequest({
      prompt: 'Summarise the input into artifacts/summary.md.',
      sessionId,
      workdir: area.workdir(sessionId),
      env: { HOME: area.home },
    });
    systems.length = 0;
    const result = await executor.run(request);

    expect(result.error).toBeUndefined();
    expect(systems.length).toBeGreaterThan(0);
    expect(systems.every((system) => system.includes('You are summariser-5.'))).toBe(true);
  }, 60_000);

  it('fails its check for a role the data root does not have', async () => {
    const executor = createBuiltinExecutor({ sandbox, role: 'poet', agencyRoot });
    expect(await executor.check()).toEqual({
      ok: false,
      problem: expect.stringContaining('The role "poet" cannot be used: Unknown role "poet"') as unknown,
    });
  });
});
