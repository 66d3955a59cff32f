import { AgencyError } from '../../core/errors.ts';
import { isId } from '../../core/ids.ts';
import type { ResultView } from '../../task/result.ts';

/** What an `agency://` resource URI names. */
export type TaskResource =
  | { kind: 'approvals' }
  | { kind: 'task'; taskId: string }
  | { kind: 'events'; taskId: string; after: number }
  | { kind: 'result'; taskId: string; view: ResultView }
  | { kind: 'deliverable'; taskId: string; path: string };

/** The URI of the approvals inbox. */
export const APPROVALS_URI = 'agency://approvals';

/** The URI of a task's detail. */
export const taskUri = (taskId: string): string => `agency://tasks/${taskId}`;

/** The URI of a deliverable, by its path under `progress/artifacts/`, each segment percent-encoded. */
export function deliverableUri(taskId: string, path: string): string {
  const relative = path.startsWith('progress/artifacts/') ? path.slice('progress/artifacts/'.length) : path;
  return `${taskUri(taskId)}/deliverables/${relative.split('/').map(encodeURIComponent).join('/')}`;
}

const TASK = /^agency:\/\/tasks\/([^/?#]+)(\/[^?#]*)?(?:\?([^#]*))?$/;
const VIEWS: readonly ResultView[] = ['minimal', 'summary', 'full'];

/**
 * Reads an `agency://` URI as written, without URL normalisation (which would resolve `..` before any check): the
 * task id must be a task id, a deliverable path is decoded segment by segment and may hold no empty, `.` or `..`
 * segment, no encoded `/` or `\`, and no NUL. The service still opens only files its deliverables listing names.
 * @throws AgencyError `invalid_argument` with `details.field` `uri`.
 */
export function parseTaskUri(uri: string): TaskResource {
  if (typeof uri !== 'string' || uri.length > 2048) throw invalid(String(uri), 'is not an agency:// URI');
  if (uri === APPROVALS_URI) return { kind: 'approvals' };
  const match = TASK.exec(uri);
  if (!match) throw invalid(uri, 'is not an agency:// URI (agency://tasks/{task_id}…, or agency://approvals)');
  const [, taskId = '', rest = '', query] = match;
  if (!isId(taskId, 'task')) throw invalid(uri, 'does not name a task id (task_ and a ULID)');
  const params = new URLSearchParams(query ?? '');
  const allowed = rest === '/events' ? ['after'] : rest === '/result' ? ['view'] : [];
  const unknown = [...params.keys()].find((key) => !allowed.includes(key));
  if (unknown !== undefined) throw invalid(uri, `has a query parameter this resource does not take: "${unknown}"`);
  if (rest === '') return { kind: 'task', taskId };
  if (rest === '/events') {
    const after = params.get('after') ?? '0';
    if (!/^\d{1,15}$/.test(after)) throw invalid(uri, '"after" must be a seq (a non-negative integer)');
    return { kind: 'events', taskId, after: Number(after) };
  }
  if (rest === '/result') {
    const view = params.get('view') ?? 'summary';
    if (!VIEWS.includes(view as ResultView)) throw invalid(uri, '"view" must be minimal, summary or full');
    return { kind: 'result', taskId, view: view as ResultView };
  }
  if (rest.startsWith('/deliverables/')) return { kind: 'deliverable', taskId, path: deliverablePath(uri, rest) };
  throw invalid(uri, 'names nothing a task has (its detail, /events, /result or /deliverables/{path})');
}

function deliverablePath(uri: string, rest: string): string {
  const segments = rest.slice('/deliverables/'.length).split('/');
  const decoded = segments.map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw invalid(uri, 'has a path segment that is not valid percent-encoding');
    }
  });
  const bad = decoded.find(
    (segment) => segment === '' || segment === '.' || segment === '..' || /[/\\\0]/.test(segment),
  );
  if (bad !== undefined) throw invalid(uri, 'has a deliverable path that is not a plain relative path');
  const path = decoded.join('/');
  if (path.length > 1024) throw invalid(uri, 'has a deliverable path over 1024 characters');
  return path;
}

function invalid(uri: string, why: string): AgencyError {
  return new AgencyError('invalid_argument', `uri: "${uri.slice(0, 200)}" ${why}`, { details: { field: 'uri' } });
}
