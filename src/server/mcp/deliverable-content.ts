import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError } from '../../core/errors.ts';
import type { TaskService } from '../../service/task-service.ts';
import { deliverableUri } from './task-uri.ts';

/** A deliverable read whole: text when it is text (by type, and valid UTF-8), bytes otherwise. */
export type DeliverableContent = {
  uri: string;
  mime: string;
  size: number;
  sha256: string;
} & ({ text: string } | { data: Uint8Array });

const TEXT_TYPES = /^(text\/|application\/(json|x-ndjson|xml|yaml|x-yaml|javascript|typescript|toml)\b)|\+(json|xml)\b/;

/**
 * Reads a deliverable through the service, which opens only files its deliverables listing names, refusing links.
 * @throws AgencyError `payload_too_large` above `maxBytes`; `path_not_found` for anything not delivered.
 */
export async function readDeliverable(
  service: TaskService,
  taskId: string,
  path: string,
  maxBytes: number,
): Promise<DeliverableContent> {
  const file = await service.deliverable(taskId, path);
  try {
    if (file.size > maxBytes)
      throw new AgencyError(
        'payload_too_large',
        `path: "${path.slice(0, 200)}" is ${file.size} bytes, over the ${maxBytes}-byte limit of MCP reads; download it over the HTTP API (GET /agent/tasks/${taskId}/deliverables/${path.slice(0, 200)})`,
        { details: { field: 'path', limit: maxBytes, size: file.size } },
      );
    const data = new Uint8Array(file.size);
    let read = 0;
    while (read < data.length) {
      const { bytesRead } = await file.handle.read(data, read, data.length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    const bytes = data.subarray(0, read);
    const base = { uri: deliverableUri(taskId, path), mime: file.mime, size: read, sha256: file.sha256 };
    const text = TEXT_TYPES.test(file.mime) ? utf8(bytes) : undefined;
    return text === undefined ? { ...base, data: bytes } : { ...base, text };
  } finally {
    await file.handle.close();
  }
}

/**
 * A deliverable as a tool result: text as text, an image as an image the model can see, anything else as an embedded
 * resource blob. `_meta["agency/deliverable"]` has its URI, type, size and sha256.
 */
export async function deliverableResult(
  service: TaskService,
  taskId: string,
  path: string,
  maxBytes: number,
): Promise<CallToolResult> {
  const file = await readDeliverable(service, taskId, path, maxBytes);
  const { uri, mime, size, sha256 } = file;
  const _meta = { 'agency/deliverable': { uri, mime, size, sha256 } };
  if ('text' in file) return { content: [{ type: 'text', text: file.text }], _meta };
  const blob = Buffer.from(file.data).toString('base64');
  if (mime.startsWith('image/')) return { content: [{ type: 'image', data: blob, mimeType: mime }], _meta };
  return { content: [{ type: 'resource', resource: { uri, mimeType: mime, blob } }], _meta };
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
