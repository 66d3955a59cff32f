// The task service's event stream ends with the run: also when it is asked for after the run journaled its finish
// and before the run let go of the task (the HTTP stream and MCP's follow_task both read it then).
import { afterEach, describe, expect, it } from 'vitest';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { type ServerFixture, serverFixture } from '../support/server-fixture.ts';

let fixture: ServerFixture;
afterEach(async () => {
  await fixture?.service.close();
});

const brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n';
const files = [{ name: 'input.txt', content: 'Agency runs governed agents.\n' }];

async function collect(frames: AsyncIterable<EventFrame>, timeoutMs: number): Promise<EventFrame[] | 'hung'> {
  const seen: EventFrame[] = [];
  const timer = new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), timeoutMs));
  const done = (async () => {
    for await (const frame of frames) seen.push(frame);
    return seen;
  })();
  return Promise.race([done, timer]);
}

describe('TaskService.events', () => {
  it('ends at the finish when asked for while the run lets go of the task', async () => {
    fixture = await serverFixture();
    const controller = new AbortController();
    const asked: Array<Promise<AsyncIterable<EventFrame>>> = [];
    let taskId: string | undefined;
    const off = fixture.service.onFrame((frame, id) => {
      // The finish is on file; the run has not let go yet.
      if (frame.type === 'finish') {
        taskId = id;
        asked.push(fixture.service.events(id, { after: 0, signal: controller.signal }));
        asked.push(fixture.service.events(id, { after: frame.seq - 1, signal: controller.signal }));
      }
    });
    try {
      const started = await fixture.service.start({ brief, files, approvals: { mode: 'auto' } }, { name: 'ana' });
      expect(started.task_id).toBeTruthy();
      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (asked.length === 2) {
            clearInterval(check);
            resolve();
          }
        }, 10);
      });
      const [whole, tail] = await Promise.all(asked.map(async (frames) => collect(await frames, 3_000)));
      expect(whole).not.toBe('hung');
      expect(tail).not.toBe('hung');
      expect((whole as EventFrame[]).at(-1)?.type).toBe('finish');
      expect((tail as EventFrame[]).map((frame) => frame.type)).toEqual(['finish']);
      // Ended once the run let go of the task: its deliverables show, as for any finished task.
      const detail = await fixture.service.get(taskId!);
      expect(detail.deliverables.map((file) => file.path)).toEqual(['progress/artifacts/summary.md']);
    } finally {
      off();
      controller.abort();
    }
  });
});
