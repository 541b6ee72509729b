/**
 * `/metrics` of the HTTP server: the commands this process runs, in Prometheus's text format.
 * prom-client rather than the OpenTelemetry Prometheus exporter: it is the Prometheus client Node
 * services use, keeps a registry per server (no global state), and spares `@mem/mcp` the OpenTelemetry
 * SDK; applications that run OpenTelemetry get the same numbers from `@mem/otel`.
 */
import { tracingChannel } from "node:diagnostics_channel";
import { performance } from "node:perf_hooks";
import { COMMAND_CHANNEL, type CommandTrace } from "@mem/core";
import { Counter, Histogram, Registry } from "prom-client";

/** The path of the metrics endpoint. */
export const METRICS_PATH = "/metrics";

export interface CommandObserver {
  readonly registry: Registry;
  /** Stops counting. */
  close(): void;
}

// Seconds: from in-process stores (sub-millisecond) to slow remote ones.
const BUCKETS = [0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Counts every memory command run in this process while it is open, through core's diagnostics
 * channel, and calls `onFailure` for each one a store failure (or a bug) ended.
 */
export const observeCommands = (onFailure: (command: CommandTrace) => void): CommandObserver => {
  const registry = new Registry();
  const labelNames = ["command", "outcome"] as const;
  const commands = new Counter({
    name: "mem_commands_total",
    help: "Memory tool commands run, by command and outcome (ok, error, refused)",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "mem_command_duration_seconds",
    help: "Duration of memory tool commands",
    labelNames,
    buckets: BUCKETS,
    registers: [registry],
  });
  const errors = new Counter({
    name: "mem_command_errors_total",
    help: "Memory tool commands that ended in an error or a refusal, by command and error type",
    labelNames: ["command", "error_type"] as const,
    registers: [registry],
  });
  const bytes = new Counter({
    name: "mem_bytes_written_total",
    help: "File bytes written by memory tool commands",
    labelNames: ["command"] as const,
    registers: [registry],
  });
  const retries = new Counter({
    name: "mem_conflict_retries_total",
    help: "Edits retried because another writer changed the file in between",
    labelNames: ["command"] as const,
    registers: [registry],
  });

  const started = new WeakMap<CommandTrace, number>();
  const handlers = {
    start: (trace: CommandTrace) => void started.set(trace, performance.now()),
    asyncEnd: (trace: CommandTrace) => {
      try {
        const command = trace.command ?? "unknown";
        const labels = { command, outcome: trace.outcome };
        commands.inc(labels);
        const begun = started.get(trace);
        if (begun !== undefined) duration.observe(labels, (performance.now() - begun) / 1000);
        if (trace.outcome !== "ok") errors.inc({ command, error_type: trace.errorType ?? "other" });
        if (trace.bytesWritten > 0) bytes.inc({ command }, trace.bytesWritten);
        if (trace.retries > 0) retries.inc({ command }, trace.retries);
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
