import type { Timers } from '../../../core/clock.ts';
import { AgencyError } from '../../../core/errors.ts';
import {
  type Component,
  findComponent,
  isTaskable,
  isTaskableDirector,
  newComponent,
} from '../../discovery/component.ts';
import { createDiscovery, type DiscoveryOptions } from '../../discovery/discovery.ts';
import type { WorkerClient } from '../../worker-client.ts';
import { label } from './place-task.ts';

/** Where a director looks for workers. */
export type Where = Pick<DiscoveryOptions, 'host' | 'ports' | 'urls' | 'connectTimeoutMs' | 'statusTimeoutMs'>;

/** One-shot discoveries for a director: the fleet now, and the workers a task may go to. */
export function createWorkerFinder({
  where,
  timers,
  clientFor,
  onNamed,
}: {
  where: Where;
  timers: Timers;
  clientFor: (url: string) => WorkerClient;
  /** Told of a worker named by URL (`--agent URL`), which may then get the token. */
  onNamed?: (url: string) => void;
}) {
  // The components found now; open ports whose answer was not a component's come too, as components that never
  // answered, so a failure to find a worker can say why.
  const discover = async (urls: readonly string[] = [], scan = true): Promise<Component[]> => {
    const finder = createDiscovery({
      ...where,
      urls: [...(where.urls ?? []), ...urls],
      ...(scan ? {} : { ports: null }),
      timers,
      clientFor,
    });
    const components = await finder.refresh();
    const ignored = [...finder.ignored()].map(([url, error]): Component => ({
      ...newComponent(url, 'scan', timers.now()),
      health: 'yellow',
      failures: 1,
      error,
    }));
    return [...components, ...ignored];
  };

  return {
    discover,
    /**
     * The workers to try, freshly polled: the one `agent` names (a URL, which is not scanned for, a name or a port),
     * else every component found but taskable directors, `prefer` first.
     */
    async candidates(agent: string | undefined, prefer?: string): Promise<Component[]> {
      if (agent && /^https?:\/\//i.test(agent)) {
        onNamed?.(agent);
        const found = await discover([agent], false);
        return found.filter((component) => component.url === findComponent(found, agent)?.url);
      }
      const found = await discover();
      // A taskable director (the manager) takes only the tasks sent to it by name.
      const all = agent ? found : found.filter((component) => !isTaskableDirector(component));
      if (!agent) return prefer ? [...all].sort((a, b) => Number(b.url === prefer) - Number(a.url === prefer)) : all;
      const component = findComponent(all, agent);
      if (!component) {
        const names = all.filter(isTaskable).map(label);
        throw new AgencyError(
          'no_worker',
          `No worker "${agent}" among the ${names.length} found${names.length ? ` (${names.join(', ')})` : ''}.`,
        );
      }
      return [component];
    },
  };
}
