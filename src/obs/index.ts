// Structured logs: pino JSON lines, redacted. Node-only; import from `agency/obs`.
export {
  createLogger,
  type LogDestination,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  redactingStream,
} from './logger.ts';
export { type RollingFileOptions, rollingFile } from './rolling-file.ts';
