import { describe, expect, it } from 'vitest';
import { createFakeTimers } from '../../../test/support/fake-timers.ts';
import type { WorkerStatus } from '../api/worker-schemas.ts';
import type { WorkerClient } from '../worker-client.ts';
import type { Component } from './component.ts';
import { createDiscovery } from './discovery.ts';

const status = (name: string, state: WorkerStatus['state'] = 'idle', type: WorkerStatus['type'] = 'agent') =>
  ({
    type,
    interfaces: type === 'agent' ? ['statusable', 'taskable'] : ['statusable', 'observable'],
    name,
    version: '1.0.0',
    state,
    uptime_seconds: 1,
    current_task: null,
    config: {},
    log: [],
  }) satisfies WorkerStatus;

// A fleet whose answers a test sets by URL: a status, or an error (the worker is down).
function fakeFleet() {
  const answers = new Map<string, WorkerStatus | Error>();
  const polls = new Map<string, number>();
  const clientFor = (url: string) =>
    ({
      url,
      async status() {
        polls.set(url, (polls.get(url) ?? 0) + 1);
        const answer = answers.get(url) ?? new Error('connect ECONNREFUSED');
        if (answer instanceof Error) throw answer;
        return answer;
      },
    }) as WorkerClient;
  const probe = async (_host: string, port: number) => answers.has(`http://127.0.0.1:${port}`);
  return { answers, polls, clientFor, probe };
}

const byUrl = (components: Component[], url: string) => components.find((component) => component.url === url);

describe('discovery', () => {
  it('finds the components of the port range and the static list, and ignores what is not one', async () => {
    const fleet = fakeFleet();
    fleet.answers.set('http://127.0.0.1:9000', status('w1'));
    fleet.answers.set('http://127.0.0.1:9005', status('web', 'idle', 'view'));
    fleet.answers.set('http://127.0.0.1:9007', new Error('the answer is not the worker API'));
    const discovery = createDiscovery({
      ports: { from: 9000, to: 9009 },
      urls: ['http://10.0.0.5:9100/'],
      clientFor: fleet.clientFor,
      probe: fleet.probe,
      timers: createFakeTimers(),
    });
    const found = await discovery.refresh();
    expect(
      found.map((component) => [component.url, component.source, component.status?.name, component.health]),
    ).toEqual([
      ['http://127.0.0.1:9000', 'scan', 'w1', 'green'],
      ['http://127.0.0.1:9005', 'scan', 'web', 'green'],
      ['http://10.0.0.5:9100', 'static', undefined, 'yellow'],
    ]);
    expect([...discovery.ignored().keys()]).toEqual(['http://127.0.0.1:9007']);
  });

  it('polls a working component every second and an idle one every 5 s', async () => {
    const fleet = fakeFleet();
    const timers = createFakeTimers();
    fleet.answers.set('http://127.0.0.1:9000', status('busy', 'working'));
    fleet.answers.set('http://127.0.0.1:9001', status('calm', 'idle'));
    const discovery = createDiscovery({
      ports: { from: 9000, to: 9001 },
      scanIntervalMs: 60_000,
      clientFor: fleet.clientFor,
      probe: fleet.probe,
      timers,
    });
    discovery.start();
    await timers.advance(0);
    fleet.polls.clear();
    await timers.advance(10_000);
    expect(fleet.polls.get('http://127.0.0.1:9000')).toBe(10);
    expect(fleet.polls.get('http://127.0.0.1:9001')).toBe(2);
    // It takes a task: from its next poll on, it is polled every second.
    fleet.answers.set('http://127.0.0.1:9001', status('calm', 'working'));
    await timers.advance(5_000);
    fleet.polls.clear();
    await timers.advance(5_000);
    expect(fleet.polls.get('http://127.0.0.1:9001')).toBe(5);
    discovery.stop();
    expect(timers.pending()).toBe(0);
  });

  it('turns yellow after 1–2 failed polls and red after 3, keeping the last status, and green on the first good one', async () => {
    const fleet = fakeFleet();
    const timers = createFakeTimers();
    const url = 'http://127.0.0.1:9000';
    fleet.answers.set(url, status('w1', 'working'));
    const changes: string[] = [];
    const discovery = createDiscovery({
      ports: { from: 9000, to: 9000 },
      scanIntervalMs: 60_000,
      clientFor: fleet.clientFor,
      probe: fleet.probe,
      timers,
      onChange: (components) => changes.push(`${components[0]?.health}/${components[0]?.failures}`),
    });
    discovery.start();
    await timers.advance(0);
    fleet.answers.set(url, new Error('connect ECONNREFUSED 127.0.0.1:9000'));
    const seen: Array<[string, number, string | undefined, string | undefined]> = [];
    for (let poll = 0; poll < 4; poll++) {
      await timers.advance(1_000);
      const component = byUrl(discovery.components(), url)!;
      seen.push([component.health, component.failures, component.status?.state, component.error]);
    }
    expect(seen).toEqual([
      ['yellow', 1, 'working', 'connect ECONNREFUSED 127.0.0.1:9000'],
      ['yellow', 2, 'working', 'connect ECONNREFUSED 127.0.0.1:9000'],
      ['red', 3, 'working', 'connect ECONNREFUSED 127.0.0.1:9000'],
      ['red', 4, 'working', 'connect ECONNREFUSED 127.0.0.1:9000'],
    ]);
    fleet.answers.set(url, status('w1', 'idle'));
    await timers.advance(1_000);
    const back = byUrl(discovery.components(), url)!;
    expect([back.health, back.failures, back.status?.state, back.error]).toEqual(['green', 0, 'idle', undefined]);
    expect(back.seenAt).toBe(timers.now());
    expect(changes).toEqual(['green/0', 'yellow/1', 'yellow/2', 'red/3', 'red/4', 'green/0']);
    discovery.stop();
  });

  it('sees a component started later at the next scan, and never drops one that stopped answering', async () => {
    const fleet = fakeFleet();
    const timers = createFakeTimers();
    const discovery = createDiscovery({
      ports: { from: 9000, to: 9003 },
      clientFor: fleet.clientFor,
      probe: fleet.probe,
      timers,
    });
    discovery.start();
    await timers.advance(0);
    expect(discovery.components()).toEqual([]);
    fleet.answers.set('http://127.0.0.1:9002', status('late'));
    await timers.advance(4_999);
    expect(discovery.components()).toEqual([]);
    await timers.advance(1);
    expect(discovery.components().map((component) => component.status?.name)).toEqual(['late']);
    fleet.answers.delete('http://127.0.0.1:9002');
    await timers.advance(60_000);
    const gone = discovery.components()[0]!;
    expect([gone.health, gone.status?.name]).toEqual(['red', 'late']);
    discovery.stop();
    expect(timers.pending()).toBe(0);
  });

  it('a static URL that never answers has no status, and is red after 3 polls', async () => {
    const fleet = fakeFleet();
    const timers = createFakeTimers();
    const discovery = createDiscovery({
      ports: null,
      urls: ['http://127.0.0.1:1'],
      clientFor: fleet.clientFor,
      timers,
    });
    discovery.start();
    await timers.advance(10_000);
    const [component] = discovery.components();
    expect([component?.health, component?.failures, component?.status]).toEqual(['red', 3, undefined]);
    discovery.stop();
  });

  it('refuses a static URL that is not http(s), naming it', () => {
    expect(() => createDiscovery({ urls: ['ftp://host:21'] })).toThrow(/"ftp:\/\/host:21": only http/);
    expect(() => createDiscovery({ urls: ['localhost 9000'] })).toThrow(/"localhost 9000" is not a URL/);
  });
});
