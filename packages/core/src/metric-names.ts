/**
 * The one vocabulary of the memory tool's metrics: OpenTelemetry's names (what `@mem/otel` records) and
 * the names the OpenTelemetry Prometheus exporter gives them (what every `/metrics` endpoint serves):
 * dots become underscores, the unit is appended (`s` as `_seconds`, `By` as `_bytes`; a `{...}` unit is
 * dropped) and a counter ends in `_total`; attributes become labels the same way.
 */

/** One metric: its OpenTelemetry instrument and its Prometheus family. */
export interface MemoryMetric {
  /** The OpenTelemetry instrument name (`memory.command.duration`). */
  readonly name: string;
  readonly kind: "histogram" | "counter";
  /** The UCUM unit: `s`, `By`, or an annotation such as `{command}`. */
  readonly unit: string;
  readonly description: string;
  /** The attributes of its data points. */
  readonly attributes: readonly string[];
  /** The Prometheus family name (`memory_command_duration_seconds`). */
  readonly prometheus: string;
  /** The attributes as Prometheus labels, in the same order. */
  readonly labels: readonly string[];
}

const metric = (
  name: string,
  kind: MemoryMetric["kind"],
  unit: string,
  description: string,
  attributes: readonly string[],
  prometheus: string,
): MemoryMetric => ({
  name,
  kind,
  unit,
  description,
  attributes,
  prometheus,
  labels: attributes.map((attribute) => attribute.replaceAll(".", "_")),
});

/** The metrics of memory commands, recorded once per command. */
export const MEMORY_METRICS = {
  duration: metric(
    "memory.command.duration",
    "histogram",
    "s",
    "Duration of memory tool commands",
    ["memory.command", "memory.outcome"],
    "memory_command_duration_seconds",
  ),
  errors: metric(
    "memory.command.errors",
    "counter",
    "{command}",
    "Memory tool commands that ended in an error result (refusals not included)",
    ["memory.command", "error.type"],
    "memory_command_errors_total",
  ),
  refusals: metric(
    "memory.guard.refusals",
    "counter",
    "{command}",
    "Writes refused by a policy: the sensitive-data guard, a quota or the file size limit",
    ["memory.command", "error.type"],
    "memory_guard_refusals_total",
  ),
  retries: metric(
    "memory.conflict.retries",
    "counter",
    "{retry}",
    "Edits retried because another writer changed the file in between",
    ["memory.command"],
    "memory_conflict_retries_total",
  ),
  bytesWritten: metric(
    "memory.bytes.written",
    "counter",
    "By",
    "File bytes written by memory tool commands",
    ["memory.command"],
    "memory_bytes_written_bytes_total",
  ),
} as const satisfies Record<string, MemoryMetric>;

/** The duration histogram's bucket boundaries, in seconds: microseconds in process to a slow remote store. */
export const MEMORY_DURATION_BUCKETS: readonly number[] = [
  0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];
