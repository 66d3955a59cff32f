// Structured logs (pino JSON lines, redacted) and the OpenTelemetry settings. Node-only; import from `agency/obs`.
// Spans and metrics themselves need no import: they go through @opentelemetry/api to whatever provider is registered.
export {
  createLogger,
  type LogDestination,
  type Logger,
  type LoggerOptions,
  type LogLevel,
  redactingStream,
} from './logger.ts';
export { type RollingFileOptions, rollingFile } from './rolling-file.ts';
export { CAPTURE_CONTENT_ENV, configureTelemetry, TELEMETRY_SCOPE, type TelemetryOptions } from './telemetry.ts';
