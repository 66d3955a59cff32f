import { utf8ByteLength } from '../core/bytes.ts';
import type { ToolResultOutput } from '../core/messages.ts';
import type { Attachment } from './types.ts';

/** Caps on the attachments one execution collects. */
export type AttachmentLimits = { maxCount: number; maxBytes: number };

/** The attachments in a tool result: the file items of a multi-part result. */
export function attachmentsOfOutput(output: ToolResultOutput): Attachment[] {
  if (output.type !== 'content') return [];
  const found: Attachment[] = [];
  for (const item of output.value) {
    if (item.type !== 'file') continue;
    const isImage = item.mediaType === 'image' || item.mediaType.startsWith('image/');
    found.push({
      type: isImage ? 'image' : 'file',
      data: item.data,
      mediaType: item.mediaType,
      ...(item.filename === undefined ? {} : { filename: item.filename }),
    });
  }
  return found;
}

/** The decoded size of an attachment, in bytes (0 for URLs and references). */
export function attachmentBytes(attachment: Attachment): number {
  const { data } = attachment;
  if (data.type === 'base64') return Math.floor((data.base64.length * 3) / 4);
  if (data.type === 'text') return utf8ByteLength(data.text);
  return 0;
}

/**
 * Adds attachments to `into` while they fit the caps, and returns how many were dropped. Long loops with
 * attachment-heavy tools therefore cannot grow without bound.
 */
export function addAttachments(
  into: { attachments: Attachment[]; attachmentBytes: number },
  found: readonly Attachment[],
  limits: AttachmentLimits,
): number {
  let dropped = 0;
  for (const attachment of found) {
    const size = attachmentBytes(attachment);
    if (into.attachments.length >= limits.maxCount || into.attachmentBytes + size > limits.maxBytes) {
      dropped++;
      continue;
    }
    into.attachments.push(attachment);
    into.attachmentBytes += size;
  }
  return dropped;
}
