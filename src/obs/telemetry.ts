import {
  type Attributes,
  type Context,
  context,
  createContextKey,
  type Span,
  SpanKind,
  SpanStatusCode,
  INVALID_SPAN_CONTEXT,
  ProxyTracerProvider,
  type Tracer,
  type TracerProvider,
  trace,
} from '@opentelemetry/api';
import { defaultRedactor, type Redactor } from '../core/redact.ts';

/** The instrumentation scope of agency's spans and metrics. */
export const TELEMETRY_SCOPE = 'agency';
const SCOPE_VERSION = '0.1.0';

/**
 * The environment variable that turns content recording on (`true`), as OpenTelemetry's GenAI instrumentations
 * name it. {@link configureTelemetry} overrides it.
 */
export const CAPTURE_CONTENT_ENV = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT';

/** Options for {@link configureTelemetry}. */
export type TelemetryOptions = {
  /**
   * Record prompts, completions, tool arguments and tool results on spans (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`), redacted.
   * @default whether OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT is `true`
   */
  captureContent?: boolean | undefined;
  /**
   * Scrubs recorded content and error messages. A governed run uses its runner's redactor for its own spans.
   * @default defaultRedactor
   */
  redactor?: Redactor | undefined;
};

let settings: TelemetryOptions = {};

/**
 * Sets how agency's spans record content. Spans and metrics themselves go through `@opentelemetry/api`: they are
 * no-ops until the application registers a tracer or meter provider (see docs/observability.md).
 *
 * @example
 * configureTelemetry({ captureContent: true }); // prompts and completions on spans, redacted
 */
export function configureTelemetry(options: TelemetryOptions): void {
  settings = { ...options };
}

/** Whether content is recorded on spans. */
export function capturesContent(): boolean {
  if (settings.captureContent !== undefined) return settings.captureContent;
  return globalThis.process?.env?.[CAPTURE_CONTENT_ENV]?.toLowerCase() === 'true';
}

const REDACTOR_KEY = createContextKey('agency.redactor');

/** Runs `work` with `redactor` scrubbing the content and errors recorded on spans started within it. */
export function withSpanRedactor<T>(redactor: Redactor, work: () => T): T {
  return context.with(context.active().setValue(REDACTOR_KEY, redactor), work);
}

/** The redactor for spans started now: the enclosing run's, else the configured one, else the default. */
export function spanRedactor(active: Context = context.active()): Redactor {
  return (active.getValue(REDACTOR_KEY) as Redactor | undefined) ?? settings.redactor ?? defaultRedactor;
}

/** A value as redacted JSON text, for a content attribute. */
export function contentAttribute(value: unknown): string {
  return JSON.stringify(spanRedactor().redact(value)) ?? 'null';
}

/** The tracer agency's spans come from: the registered provider's, or the API's no-op. */
export function agencyTracer(): Tracer {
  const provider = trace.getTracerProvider();
  if (provider !== tracer.provider) tracer = { provider, tracer: provider.getTracer(TELEMETRY_SCOPE, SCOPE_VERSION) };
  return tracer.tracer;
}

let tracer: { provider: TracerProvider | undefined; tracer: Tracer } = {
  provider: undefined,
  tracer: trace.getTracer(TELEMETRY_SCOPE, SCOPE_VERSION),
};

// The API's no-op provider, which an empty proxy delegates to.
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
// A span that records nothing, handed to work that runs without tracing.
const NOT_RECORDING = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Whether spans are recorded: false until a tracer provider is registered. Instrumentation skips its work when it
 * is false, so a process without OpenTelemetry pays nothing for it.
 */
export function tracing(): boolean {
  const provider = trace.getTracerProvider();
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_TRACER_PROVIDER;
}

/** Options for {@link inSpan}. */
export type SpanOptions<T> = {
  kind?: SpanKind;
  /** Sets attributes, and the error status, from the value `work` resolved with. */
  end?: (span: Span, value: T) => void;
};

/**
 * Runs `work` in a new span made active for it, so spans started inside nest under it. A throw marks the span as an
 * error (`error.type` and a redacted status message) and is rethrown. Without a registered tracer provider the span
 * is the API's no-op.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  { kind = SpanKind.INTERNAL, end }: SpanOptions<T> = {},
): Promise<T> {
  if (!tracing()) return work(NOT_RECORDING);
  return agencyTracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      const value = await work(span);
      if (end && span.isRecording()) end(span, value);
      return value;
    } catch (error) {
      markError(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Marks a span as failed: `error.type` is the error's code (an AgencyError's `code`, else its class name) and the
 * status message its redacted message.
 */
export function markError(span: Span, error: unknown, type?: string): void {
  if (!span.isRecording()) return;
  const code = type ?? errorType(error);
  const message = error instanceof Error ? error.message : typeof error === 'string' ? error : code;
  span.setAttribute('error.type', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: spanRedactor().redactText(message) });
}

function errorType(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '') return code;
    if (error instanceof Error) return error.name;
  }
  return '_OTHER';
}
