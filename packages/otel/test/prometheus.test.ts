/**
 * The metric names of core's table against the real OpenTelemetry Prometheus exporter of JavaScript,
 * given the instruments this package records: the same names and labels but for the unit suffix, which
 * the specification's mapping (and the Collector's exporter) appends and this exporter leaves out. What
 * `/metrics` serves (`@mem/mcp`) is checked against the same table.
 */
import { executeCommand, InMemoryStore, MEMORY_METRICS } from "@mem/core";
import { PrometheusExporter, PrometheusSerializer } from "@opentelemetry/exporter-prometheus";
import { MeterProvider } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { instrument } from "../src/index.js";
import { ContendedStore } from "./helpers.js";

/** Every kind of outcome: ok, an error, a refusal, retries and bytes written. */
const runCommands = async () => {
  const store = new InMemoryStore();
  await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "one\n" });
  await executeCommand(store, { command: "view", path: "/memories/none" });
  await executeCommand(store, { command: "create", path: "/memories/k", file_text: "AKIAIOSFODNN7EXAMPLE" });
  await executeCommand(new ContendedStore(store, 2), {
    command: "str_replace",
    path: "/memories/a.md",
    old_str: "one",
    new_str: "1",
  });
};

describe("metric names", () => {
  it("the JavaScript Prometheus exporter names each instrument as MEMORY_METRICS says, unit suffix aside", async () => {
    const exporter = new PrometheusExporter({ preventServerStart: true });
    const meterProvider = new MeterProvider({ readers: [exporter] });
    const instrumentation = instrument({ meterProvider });
    try {
      await runCommands();
      const { resourceMetrics } = await exporter.collect();
      const text = new PrometheusSerializer().serialize(resourceMetrics);

      const families = [...text.matchAll(/^# TYPE (memory_\w+) (\w+)$/gm)].map(([, name, kind]) => [
        name,
        kind,
      ]);
      // `_seconds` of `s` and `_bytes` of `By`: the unit suffixes this exporter does not append.
      const withoutUnit = (name: string) => name.replace(/_(seconds|bytes)(?=(_total)?$)/, "");
      const table = Object.values(MEMORY_METRICS).map((m) => [withoutUnit(m.prometheus), m.kind]);
      expect(families.sort()).toEqual(table.sort());

      for (const metric of Object.values(MEMORY_METRICS)) {
        const family = withoutUnit(metric.prometheus);
        const sample = metric.kind === "histogram" ? `${family}_count` : family;
        const lines = text.split("\n").filter((line) => line.startsWith(`${sample}{`));
        expect(lines.length, sample).toBeGreaterThan(0);
        for (const line of lines) {
          const labels = [...line.matchAll(/(\w+)="/g)].map(([, label]) => label);
          expect(labels, line).toEqual(expect.arrayContaining([...metric.labels]));
        }
      }
      expect(text).toContain('memory_command_duration_count{memory_command="view",memory_outcome="error"');
      expect(text).toMatch(/^memory_conflict_retries_total\{memory_command="str_replace"[^}]*\} 2$/m);
    } finally {
      instrumentation.uninstrument();
      await meterProvider.shutdown();
    }
  });
});
