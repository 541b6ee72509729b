import { InMemoryStore } from "@mem/core";
import { describe, expect, it } from "vitest";
import { type ConformanceSuiteName, conformanceSuites, runConformance } from "../src/index.js";

const target = {
  name: "InMemoryStore",
  create: () => new InMemoryStore(),
  tenants: true,
  createExpiring: (expiry: { expireAfterSeconds: number; clock: () => number }) => new InMemoryStore(expiry),
  // Registered here, run for real by in-memory.test.ts (which reads the medium).
  erasure: { dump: async () => [] },
};
const ALL = Object.keys(conformanceSuites) as ConformanceSuiteName[];

/** A runner that only records: describe bodies run at once, test bodies never. */
function record(register: (runner: { describe: typeof describe; it: typeof it }) => void) {
  const describes: string[] = [];
  const tests: string[] = [];
  register({
    describe: ((name: string, body: () => void) => {
      describes.push(name);
      body();
    }) as never,
    it: ((name: string) => {
      tests.push(name);
    }) as never,
  });
  return { describes, tests };
}

/** The describe title and the tests of each suite alone. */
const alone = Object.fromEntries(
  ALL.map((name) => [name, record((runner) => conformanceSuites[name]({ ...target, ...runner }))]),
) as Record<ConformanceSuiteName, { describes: string[]; tests: string[] }>;

// The suites this file runs for real, through vitest's functions wrapped to count what they receive.
const SKIPPED: ConformanceSuiteName[] = ["failure", "concurrency", "hostile", "quota", "expiry", "erasure"];
const counted = { describes: [] as string[], tests: [] as string[], ran: 0, expectations: 0 };
runConformance({
  ...target,
  name: "InMemoryStore through a counting runner",
  skip: SKIPPED,
  describe: (name, body) => {
    counted.describes.push(name);
    describe(name, body);
  },
  it: (name, body, timeout) => {
    counted.tests.push(name);
    it(
      name,
      async () => {
        counted.ran += 1;
        await body();
      },
      timeout,
    );
  },
  expect: new Proxy(expect, {
    apply(check, self, args) {
      counted.expectations += 1;
      return Reflect.apply(check, self, args);
    },
  }),
});

describe("runConformance with the runner's functions", () => {
  it("names every suite, and each registers a describe of its own with tests", () => {
    expect(ALL).toEqual([
      "golden",
      "reserved",
      "failure",
      "concurrency",
      "hostile",
      "quota",
      "tenants",
      "expiry",
      "erasure",
      "mounts",
      "search",
      "windows",
    ]);
    for (const name of ALL) {
      expect(alone[name].describes, name).toHaveLength(2);
      expect(alone[name].describes[0]).toBe("memory store conformance: InMemoryStore");
      expect(alone[name].tests.length, name).toBeGreaterThan(0);
    }
  });

  it("registers every suite but the skipped ones, in the table's order", () => {
    const kept = ALL.filter((name) => !SKIPPED.includes(name));
    expect(counted.describes).toEqual([
      "memory store conformance: InMemoryStore through a counting runner",
      ...kept.map((name) => alone[name].describes[1]),
    ]);
    expect(counted.tests).toEqual(kept.flatMap((name) => alone[name].tests));
    for (const name of SKIPPED) {
      for (const test of alone[name].tests) expect(counted.tests, name).not.toContain(test);
    }
  });

  it("leaves out the tenant, expiry and erasure suites when the target cannot run them", () => {
    const { tenants: _, createExpiring: __, erasure: ___, ...plain } = target;
    const all = record((runner) => runConformance({ ...plain, ...runner }));
    expect(all.describes).toEqual([
      "memory store conformance: InMemoryStore",
      ...ALL.filter((n) => n !== "tenants" && n !== "expiry" && n !== "erasure").map(
        (n) => alone[n].describes[1],
      ),
    ]);
  });

  it("refuses an unknown suite name or a runner function that is not one, before registering anything", () => {
    const bad: unknown[] = [
      { skip: ["quota", "erasur"] },
      { skip: "quota" },
      { skip: [7] },
      { it: "vitest" },
    ];
    for (const options of bad) {
      const seen = record((runner) =>
        expect(() => runConformance({ ...target, ...runner, ...(options as object) })).toThrow(TypeError),
      );
      expect(seen.describes, JSON.stringify(options)).toEqual([]);
    }
    expect(() => runConformance({ ...target, skip: ["quota", "erasur" as never] })).toThrow(
      'runConformance: option "skip" lists "erasur", not a suite; the suites are golden, reserved, failure, concurrency, hostile, quota, tenants, expiry, erasure, mounts, search',
    );
  });

  it("ran the registered tests with the injected it and asserted with the injected expect", () => {
    expect(counted.ran).toBe(counted.tests.length);
    expect(counted.expectations).toBeGreaterThan(counted.ran);
  });
});
