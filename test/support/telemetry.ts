// An in-process OpenTelemetry setup for tests: spans to an in-memory exporter, metrics to a reader that collects on
// demand, and the async-hooks context manager so spans nest as they would under the Node SDK.
import { context, metrics, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { type DataPoint, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';

class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export type TestTelemetry = {
  /** Finished spans, in the order they ended. */
  spans(): ReadableSpan[];
  /** The data points of one metric, by name, as collected now (since the last reset). */
  points(name: string): Promise<Array<DataPoint<unknown>>>;
  /** Forgets the spans and metrics recorded so far. */
  reset(): void;
  /** Unregisters everything, so the API is a no-op again. */
  uninstall(): Promise<void>;
};

/** Registers a tracer provider, a meter provider and a context manager globally for the test file. */
export function installTelemetry(): TestTelemetry {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  let reader = new CollectingReader();
  let meterProvider = new MeterProvider({ readers: [reader] });
  if (!trace.setGlobalTracerProvider(tracerProvider)) throw new Error('a tracer provider is already registered');
  context.setGlobalContextManager(contextManager);
  metrics.setGlobalMeterProvider(meterProvider);
  // Metrics are cumulative: a reset starts a new meter provider, whose meter gets new instruments.
  const resetMetrics = () => {
    void meterProvider.shutdown();
    metrics.disable();
    reader = new CollectingReader();
    meterProvider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(meterProvider);
  };
  return {
    spans: () => exporter.getFinishedSpans(),
    async points(name) {
      const { resourceMetrics } = await reader.collect();
      const found = resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .find((metric) => metric.descriptor.name === name);
      return found?.dataPoints ?? [];
    },
    reset() {
      exporter.reset();
      resetMetrics();
    },
    async uninstall() {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
      trace.disable();
      context.disable();
      metrics.disable();
    },
  };
}

/** The span named `name`; fails the test when there is none or more than one. */
export function spanNamed(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`expected one span "${name}", found ${found.length}: ${spanNames(spans)}`);
  return found[0] as ReadableSpan;
}

/** The names of the spans, for messages. */
export function spanNames(spans: readonly ReadableSpan[]): string {
  return spans.map((span) => span.name).join(', ');
}

/** The parent span of `span` among `spans`, if it ended. */
export function parentOf(spans: readonly ReadableSpan[], span: ReadableSpan): ReadableSpan | undefined {
  const parent = span.parentSpanContext?.spanId;
  return spans.find((candidate) => candidate.spanContext().spanId === parent);
}
