/** A real OpenTelemetry SDK exporting to memory, and stores that fail or contend on demand. */
import { ForwardingStore, type MemoryStore } from "@mem/core";
import {
  AggregationTemporality,
  MeterProvider,
  MetricReader,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { type Instrumentation, type InstrumentOptions, instrument } from "../src/index.js";

/** A metric reader collected by hand: `collect()` whenever the test wants the numbers. */
class ManualReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

export interface Telemetry {
  spans(): ReadableSpan[];
  /** Every data point of `name`, with its attributes and value (a histogram's value is its count). */
  points(name: string): { attributes: Record<string, unknown>; value: number }[];
  collected(): Promise<ResourceMetrics>;
  instrumentation: Instrumentation;
  stop(): Promise<void>;
}

export const startTelemetry = async (options: InstrumentOptions = {}): Promise<Telemetry> => {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new ManualReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const instrumentation = instrument({ tracerProvider, meterProvider, ...options });
  let last: ResourceMetrics | undefined;
  const collected = async () => {
    const { resourceMetrics, errors } = await reader.collect();
    if (errors.length > 0) throw errors[0];
    last = resourceMetrics;
    return resourceMetrics;
  };
  return {
    spans: () => exporter.getFinishedSpans(),
    collected,
    points(name) {
      const out: { attributes: Record<string, unknown>; value: number }[] = [];
      for (const scope of last?.scopeMetrics ?? []) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name !== name) continue;
          for (const point of metric.dataPoints) {
            const value = point.value as number | { count: number };
            out.push({
              attributes: { ...point.attributes },
              value: typeof value === "number" ? value : value.count,
            });
          }
        }
      }
      return out;
    },
    instrumentation,
    async stop() {
      instrumentation.uninstrument();
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
};

/** `inner`, with one operation throwing `error`. */
export class BrokenStore extends ForwardingStore {
  constructor(
    inner: MemoryStore,
    private readonly operation: "read" | "write" | "delete",
    private readonly error: () => Error,
  ) {
    super(inner);
  }
  override async read(path: string) {
    if (this.operation === "read") throw this.error();
    return super.read(path);
  }
  override async write(...args: Parameters<ForwardingStore["write"]>) {
    if (this.operation === "write") throw this.error();
    return super.write(...args);
  }
  override async delete(...args: Parameters<ForwardingStore["delete"]>) {
    if (this.operation === "delete") throw this.error();
    return super.delete(...args);
  }
}

/** `inner` (without native `update`), where another writer changes the file before each of the first `n` edits. */
export class ContendedStore extends ForwardingStore {
  constructor(
    inner: MemoryStore,
    private losses: number,
  ) {
    super(inner);
  }
  override async write(...args: Parameters<ForwardingStore["write"]>) {
    const [path, , condition] = args;
    if ("ifVersion" in condition && this.losses-- > 0) {
      const current = await this.inner.read(path);
      const changed = new Uint8Array([...new TextEncoder().encode("x "), ...current!.data]);
      await this.inner.write(path, changed, { ifVersion: condition.ifVersion });
    }
    return super.write(...args);
  }
}

/** Everything a span exposes to an exporter, as one string: names, attributes, events, status. */
export const everything = (spans: readonly ReadableSpan[]): string =>
  JSON.stringify(
    spans.map((s) => ({
      name: s.name,
      attributes: s.attributes,
      events: s.events,
      status: s.status,
      links: s.links,
    })),
  );
