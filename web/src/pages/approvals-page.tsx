import { useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { InboxItem } from '../api/types.ts';
import { ApprovalCard } from '../components/approval/approval-card.tsx';
import { Badge } from '../components/badge.tsx';
import { EmptyState } from '../components/empty-state.tsx';
import { ErrorAlert } from '../components/error-alert.tsx';
import { Notice } from '../components/notice.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { Loading } from '../components/spinner.tsx';
import { useNow } from '../hooks/use-now.ts';
import { useResource } from '../hooks/use-resource.ts';

const ORDER: Record<InboxItem['state'], number> = { pending: 0, stale: 1, expired: 2 };

/** Every plan and tool request waiting for a person, across tasks; expired and stale ones are kept, marked. */
export function ApprovalsPage({ onChanged }: { onChanged: () => void }) {
  const inbox = useResource(() => api.approvals(), 'inbox', { pollMs: 5_000 });
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const now = useNow();
  const items = [...(inbox.data?.items ?? [])].sort(
    (a, b) => ORDER[a.state] - ORDER[b.state] || a.request.created_at.localeCompare(b.request.created_at),
  );
  const pending = items.filter((item) => item.state === 'pending').length;
  const closed = items.length - pending;

  return (
    <div class="page" data-testid="approvals-page">
      <PageHeader
        pretitle="Inbox"
        title="Approvals"
        actions={
          <div class="header-badges">
            <Badge tone="orange" testId="approvals-pending-count">
              {pending} pending
            </Badge>
            {closed > 0 ? <Badge tone="gray">{closed} expired or stale</Badge> : null}
          </div>
        }
      />
      <Notice message={notice} testId="approval-notice" />
      <ErrorAlert message={inbox.error} onRetry={inbox.reload} />
      {inbox.data === undefined && inbox.loading ? <Loading label="Loading the inbox…" /> : null}
      {inbox.data !== undefined && items.length === 0 ? (
        <div class="card">
          <EmptyState title="Nothing to decide" testId="approvals-empty">
            Plans and tool calls that need a person appear here. Nothing is ever approved for you while it waits.
          </EmptyState>
        </div>
      ) : null}
      <div class="approval-list">
        {items.map((item) => (
          <ApprovalCard
            key={item.request.id}
            request={item.request}
            state={item.state}
            plan={item.plan}
            goal={item.goal}
            now={now}
            onDecided={(decision) => {
              const what = item.request.type === 'plan' ? 'Plan' : item.request.tool_name;
              setNotice(`${what} ${decision} for “${item.goal}” (${item.request.id}).`);
              inbox.reload();
              onChanged();
            }}
          />
        ))}
      </div>
    </div>
  );
}
