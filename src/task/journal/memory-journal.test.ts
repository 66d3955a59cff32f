import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { createMemoryJournal } from './memory-journal.ts';

describe('createMemoryJournal', () => {
  it('stamps frames with version, id, increasing seq and ts, and acknowledges them on flush', async () => {
    const journal = createMemoryJournal({ now: () => Date.UTC(2025, 4, 6, 7, 8, 9, 10) });
    const first = journal.append({ type: 'phase.start', step: 'plan' });
    journal.append({ type: 'phase.finish', step: 'plan' });
    expect(first).toMatchObject({ version: 'agent.events.v1', seq: 1, ts: '2025-05-06T07:08:09.010Z' });
    expect(first.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([journal.lastSeq, journal.durableSeq, journal.durableFrames.length]).toEqual([2, 0, 0]);
    await journal.flush();
    expect([journal.durableSeq, journal.durableFrames.length]).toEqual([2, 2]);
  });

  it('applies the redact hook and keeps copies, so later changes to the caller objects do not leak in', () => {
    const journal = createMemoryJournal({ redact: (frame) => ({ ...frame, message: '[REDACTED]' }) });
    const data = { path: 'a.txt' };
    journal.append({ type: 'tool.call', message: 'secret', data });
    data.path = 'changed';
    expect(journal.frames[0]).toMatchObject({ message: '[REDACTED]', data: { path: 'a.txt' } });
  });

  it('reopens from the frames a journal had on record', async () => {
    const earlier = createMemoryJournal();
    earlier.append({ type: 'warning', message: 'kept' });
    await earlier.flush();
    earlier.append({ type: 'warning', message: 'lost' });
    const reopened = createMemoryJournal({ frames: earlier.durableFrames });
    expect(reopened.append({ type: 'run.resumed' }).seq).toBe(2);
    expect((await reopened.read()).frames.map((frame) => frame.message)).toEqual(['kept']);
  });

  it('simulates a disk failure: the flush rejects with journal_not_durable and the journal stays broken', async () => {
    const journal = createMemoryJournal();
    journal.append({ type: 'warning' });
    await journal.flush();
    const cause = Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    journal.failNextFlush(cause);
    journal.append({ type: 'warning' });
    const error = await journal.flush().catch((e: unknown) => e);
    expect(AgencyError.hasCode(error, 'journal_not_durable')).toBe(true);
    expect((error as AgencyError).cause).toBe(cause);
    expect([journal.lastSeq, journal.durableSeq]).toEqual([2, 1]);
    expect(() => journal.append({ type: 'warning' })).toThrow(expect.objectContaining({ code: 'journal_not_durable' }));
    await expect(journal.flush()).rejects.toMatchObject({ code: 'journal_not_durable' });
    expect(journal.durableFrames.map((f) => f.seq)).toEqual([1]);
  });
});
