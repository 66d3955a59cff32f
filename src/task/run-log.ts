import type { Logger } from '../obs/logger.ts';
import type { RunListener } from './session.ts';

/**
 * A listener that writes each journal frame of every run as one structured log line: the task, the frame's seq,
 * type and step, and its message; a frame with an error is logged at `error` with it. The logger's own redaction
 * applies, on top of the journal's.
 */
export function frameLogger(logger: Logger): RunListener {
  return (frame, taskId) => {
    const fields = {
      task_id: taskId,
      seq: frame.seq,
      type: frame.type,
      ...(frame.step === undefined ? {} : { step: frame.step }),
      ...(frame.error === undefined ? {} : { error: frame.error }),
    };
    const message = frame.message ?? frame.type;
    if (frame.error) logger.error(fields, message);
    else logger.info(fields, message);
  };
}
