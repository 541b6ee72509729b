/** The `memory.*` metrics, recorded once per command. */
import type { CommandTrace } from "@mem/core";
import type { Attributes, Meter } from "@opentelemetry/api";
import { ATTR } from "./names.js";

/** The metric names this package records. */
export const METRICS = {
  duration: "memory.command.duration",
  errors: "memory.command.errors",
  retries: "memory.conflict.retries",
  bytesWritten: "memory.bytes.written",
  refusals: "memory.guard.refusals",
} as const;

// Seconds: a memory command takes from microseconds (in process) to seconds (a slow remote store).
const BOUNDARIES = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const createInstruments = (meter: Meter) => {
  const duration = meter.createHistogram(METRICS.duration, {
    description: "Duration of memory tool commands",
    unit: "s",
    advice: { explicitBucketBoundaries: BOUNDARIES },
  });
  const errors = meter.createCounter(METRICS.errors, {
    description: "Memory tool commands that ended in an error result (refusals not included)",
    unit: "{command}",
  });
  const retries = meter.createCounter(METRICS.retries, {
    description: "Edits retried because another writer changed the file in between",
    unit: "{retry}",
  });
  const bytesWritten = meter.createCounter(METRICS.bytesWritten, {
    description: "File bytes written by memory tool commands",
    unit: "By",
  });
  const refusals = meter.createCounter(METRICS.refusals, {
    description: "Writes refused by a policy: the sensitive-data guard, a quota or the file size limit",
    unit: "{command}",
  });

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
