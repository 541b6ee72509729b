/**
 * `/metrics` of the HTTP server: the commands this process runs, in Prometheus's text format.
 * prom-client rather than the OpenTelemetry Prometheus exporter: it is the Prometheus client Node
 * services use, keeps a registry per server (no global state), and spares `@mem/mcp` the OpenTelemetry
 * SDK; applications that run OpenTelemetry get the same numbers from `@mem/otel`.
 */
import { tracingChannel } from "node:diagnostics_channel";
import { performance } from "node:perf_hooks";
import { COMMAND_CHANNEL, type CommandTrace, MEMORY_DURATION_BUCKETS, MEMORY_METRICS } from "@mem/core";
import { Counter, Histogram, Registry } from "prom-client";

/** The path of the metrics endpoint. */
export const METRICS_PATH = "/metrics";

export interface CommandObserver {
  readonly registry: Registry;
  /** Stops counting. */
  close(): void;
}

/**
 * Counts every memory command run in this process while it is open, through core's diagnostics
 * channel, under the names and labels of core's `MEMORY_METRICS` (OpenTelemetry's, as Prometheus names
 * them), and calls `onFailure` for each one a store failure (or a bug) ended.
 */
export const observeCommands = (onFailure: (command: CommandTrace) => void): CommandObserver => {
  const registry = new Registry();
  const { duration: d, errors: e, refusals: r, retries: c, bytesWritten: w } = MEMORY_METRICS;
  const duration = new Histogram({
    name: d.prometheus,
    help: d.description,
    labelNames: d.labels,
    buckets: [...MEMORY_DURATION_BUCKETS],
    registers: [registry],
  });
  const counter = (metric: typeof e | typeof r | typeof c | typeof w) =>
    new Counter({
      name: metric.prometheus,
      help: metric.description,
      labelNames: metric.labels,
      registers: [registry],
    });
  const errors = counter(e);
  const refusals = counter(r);
  const retries = counter(c);
  const bytes = counter(w);

  const started = new WeakMap<CommandTrace, number>();
  const handlers = {
    start: (trace: CommandTrace) => void started.set(trace, performance.now()),
    asyncEnd: (trace: CommandTrace) => {
      try {
        // The values @mem/otel records: `_OTHER` where a command or an error type is unknown.
        const by = { memory_command: trace.command ?? "_OTHER" };
        const begun = started.get(trace);
        if (begun !== undefined) {
          duration.observe({ ...by, memory_outcome: trace.outcome }, (performance.now() - begun) / 1000);
        }
        const typed = { ...by, error_type: trace.errorType ?? "_OTHER" };
        if (trace.outcome === "error") errors.inc(typed);
        if (trace.outcome === "refused") refusals.inc(typed);
        if (trace.bytesWritten > 0) bytes.inc(by, trace.bytesWritten);
        if (trace.retries > 0) retries.inc(by, trace.retries);
        if (trace.errorType === "store_failure" || trace.errorType === "unexpected") onFailure(trace);
      } catch {
        // Metrics are best effort; a failing one must never reach the command.
      }
    },
  };
  const channel = tracingChannel<CommandTrace>(COMMAND_CHANNEL);
  channel.subscribe(handlers as Parameters<typeof channel.subscribe>[0]);
  let open = true;
  return {
    registry,
    close() {
      if (!open) return;
      open = false;
      channel.unsubscribe(handlers as Parameters<typeof channel.unsubscribe>[0]);
    },
  };
};
