/** The `memory.*` metrics, recorded once per command, under the names of core's `MEMORY_METRICS`. */
import { type CommandTrace, MEMORY_DURATION_BUCKETS, MEMORY_METRICS } from "@mem/core";
import type { Attributes, Meter } from "@opentelemetry/api";
import { ATTR } from "./names.js";

/** The metric names this package records. */
export const METRICS = {
  duration: MEMORY_METRICS.duration.name,
  errors: MEMORY_METRICS.errors.name,
  retries: MEMORY_METRICS.retries.name,
  bytesWritten: MEMORY_METRICS.bytesWritten.name,
  refusals: MEMORY_METRICS.refusals.name,
} as const;

const counter = (
  meter: Meter,
  metric: (typeof MEMORY_METRICS)[Exclude<keyof typeof MEMORY_METRICS, "duration">],
) => meter.createCounter(metric.name, { description: metric.description, unit: metric.unit });

export const createInstruments = (meter: Meter) => {
  const duration = meter.createHistogram(MEMORY_METRICS.duration.name, {
    description: MEMORY_METRICS.duration.description,
    unit: MEMORY_METRICS.duration.unit,
    advice: { explicitBucketBoundaries: [...MEMORY_DURATION_BUCKETS] },
  });
  const errors = counter(meter, MEMORY_METRICS.errors);
  const retries = counter(meter, MEMORY_METRICS.retries);
  const bytesWritten = counter(meter, MEMORY_METRICS.bytesWritten);
  const refusals = counter(meter, MEMORY_METRICS.refusals);

  return {
    record(command: CommandTrace, seconds: number): void {
      const by: Attributes = { [ATTR.command]: command.command ?? "_OTHER" };
      duration.record(seconds, { ...by, [ATTR.outcome]: command.outcome });
      const type = command.errorType ?? "_OTHER";
      if (command.outcome === "error") errors.add(1, { ...by, [ATTR.errorType]: type });
      if (command.outcome === "refused") refusals.add(1, { ...by, [ATTR.errorType]: type });
      if (command.retries > 0) retries.add(command.retries, by);
      if (command.bytesWritten > 0) bytesWritten.add(command.bytesWritten, by);
    },
  };
};
