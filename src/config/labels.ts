// Labels: what a worker has (`labels:` in its config) and what a task requires (`agency task --label`, a director's
// `labels:`). A worker takes a task only when the task's labels are a subset of its own.
import { z } from 'zod';

/** Most labels a worker or a task may carry. */
export const MAX_LABELS = 16;

/** One label: lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, up to 32. */
export const labelSchema = z
  .string({ error: 'must be a label, e.g. gpu' })
  .regex(/^[a-z0-9][a-z0-9._-]{0,31}$/, 'must be a label: a-z, 0-9, ".", "_" and "-" (up to 32), e.g. gpu or linux');

/** A list of labels in a config, at most {@link MAX_LABELS}, sorted and without repeats once parsed. */
export const labelsSchema = z
  .array(labelSchema, { error: 'must be a list of labels, e.g. [gpu, linux]' })
  .max(MAX_LABELS, `must be at most ${MAX_LABELS} labels`)
  .transform(canonicalLabels);

/** Labels sorted and without repeats: the one spelling of a label set. */
export function canonicalLabels(labels: readonly string[]): string[] {
  return [...new Set(labels)].sort();
}

/** Whether every label of `required` is in `has`. */
export function hasLabels(has: readonly string[], required: readonly string[]): boolean {
  const own = new Set(has);
  return required.every((label) => own.has(label));
}
