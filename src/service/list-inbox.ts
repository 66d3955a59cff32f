import { join } from 'node:path';
import type { InboxItem } from '../api/schemas.ts';
import { inboxItemsOf } from './approval-inbox.ts';
import { type ServiceCore, taskIdsOf } from './service-core.ts';
import { readTaskRecord } from './task-records.ts';

/** Every pending approval request of the runs not finished yet, across tasks, oldest task first. */
export async function listInbox(core: ServiceCore): Promise<InboxItem[]> {
  const items: InboxItem[] = [];
  for (const id of await taskIdsOf(core)) {
    // A root the service refuses to read (a workflow.json it cannot trust) holds no request it would act on.
    const record = await readTaskRecord(join(core.root.tasks, id), id).catch(() => undefined);
    if (!record?.state || record.state.finish_reason !== null) continue;
    items.push(...(await inboxItemsOf(record, record.spec?.goal ?? '', core.now())));
  }
  return items;
}
