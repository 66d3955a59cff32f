/** The structured logger a service writes to: pino's shape (`logger.info({ task_id }, 'message')`). */
export type ServiceLogger = {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
};

/** A logger that drops everything, for tests and embedded use. */
export const silentLogger: ServiceLogger = { info() {}, warn() {}, error() {} };
