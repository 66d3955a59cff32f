import { useState } from 'preact/hooks';
import type { FleetView } from '../api/types.ts';
import { Badge } from '../components/badge.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { ComponentCard } from '../components/fleet/component-card.tsx';
import { FleetTasks } from '../components/fleet/fleet-tasks.tsx';
import { RegistryTable } from '../components/fleet/registry-table.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { Loading } from '../components/spinner.tsx';
import { StreamIndicator } from '../components/timeline/stream-indicator.tsx';
import { useFleet } from '../hooks/use-fleet.ts';
import { useNow } from '../hooks/use-now.ts';
import { componentKey } from '../lib/fleet.ts';

/**
 * The fleet: the PostgreSQL registry's workers and the fleet's tasks, one open with its live timeline (on a server with
 * AGENCY_DATABASE_URL), and a card per component discovery found, kept current by the server's live feed.
 */
export function FleetPage() {
  const { fleet, state } = useFleet();
  const now = useNow(5_000);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const components = fleet?.components ?? [];
  const working = components.filter((component) => component.state === 'working').length;
  return (
    <div class="page" data-testid="fleet-page">
      <PageHeader
        pretitle="Workers"
        title="Fleet"
        actions={
          <div class="header-badges">
            <Badge tone="gray" testId="fleet-count">
              {components.length} found
            </Badge>
            {working > 0 ? <Badge tone="blue">{working} working</Badge> : null}
            <StreamIndicator state={state === 'ended' ? 'live' : state} />
          </div>
        }
      />
      {fleet === undefined ? <Loading label="Loading the fleet…" /> : null}
      {fleet?.registry ? <RegistryTable registry={fleet.registry} now={now} onOpen={setOpen} /> : null}
      {fleet?.registry ? <FleetTasks open={open} onOpen={setOpen} now={now} /> : null}
      {fleet !== undefined && components.length === 0 && !fleet.registry ? (
        <div class="card">
          <EmptyState title={fleet.enabled ? 'No workers found' : 'The fleet is off'} testId="fleet-empty">
            {where(fleet)}
          </EmptyState>
        </div>
      ) : null}
      <div class="fleet-grid">
        {components.map((component) => (
          <ComponentCard key={componentKey(component)} component={component} now={now} />
        ))}
      </div>
      {fleet && components.length > 0 ? <p class="small muted fleet-where">{where(fleet)}</p> : null}
    </div>
  );
}

function where(fleet: FleetView): string {
  if (!fleet.enabled) return 'This server was started with --no-fleet.';
  const parts = [
    ...(fleet.scan ? [`ports ${fleet.scan.from}–${fleet.scan.to} of ${fleet.scan.host}`] : []),
    ...fleet.urls,
  ];
  return parts.length > 0
    ? `Looking at ${parts.join(', ')}. Start one with agency worker NAME.`
    : 'No ports are scanned and no worker URL is set: see agency serve --fleet-ports and --fleet-worker.';
}
