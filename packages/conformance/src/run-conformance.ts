import type { ExpiryOptions, MemoryStore } from "@mem/core";
import { type GoldenTranscript, loadGoldenTranscripts } from "./golden.js";
import { type ConformanceRunner, vitestRunner } from "./runner.js";
import { concurrencySuite } from "./suites/concurrency-suite.js";
import { type ErasureHarness, erasureSuite, type RawRecord } from "./suites/erasure-suite.js";
import { type ExpiringHarness, expirySuite } from "./suites/expiry-suite.js";
import { failureSuite } from "./suites/failure-suite.js";
import { goldenSuite } from "./suites/golden-suite.js";
import type { Harness } from "./suites/harness.js";
import { hostileSuite } from "./suites/hostile-suite.js";
import { mountsSuite } from "./suites/mounts-suite.js";
import { quotaSuite } from "./suites/quota-suite.js";
import { reservedSuite } from "./suites/reserved-suite.js";
import { searchSuite } from "./suites/search-suite.js";
import { tenantSuite } from "./suites/tenant-suite.js";
import { windowsSuite } from "./suites/windows-suite.js";

export interface ConformanceOptions {
  /** Timeout of each test in milliseconds. Default 60,000. */
  readonly timeout?: number;
  /** Runs of each fast-check property. Default 40. */
  readonly propertyRuns?: number;
  /** Concurrent str_replace/insert calls on one file; at least 50 (the default). */
  readonly concurrentEdits?: number;
  /** Concurrent creates of one path; at least 30 (the default). */
  readonly concurrentCreates?: number;
  /** More transcripts to play after the shipped ones (see `parseGoldenTranscript`). */
  readonly extraTranscripts?: readonly GoldenTranscript[];
}

export interface ConformanceTarget<S extends MemoryStore = MemoryStore> extends Partial<ConformanceRunner> {
  /** Shown in the name of the top-level `describe`. */
  readonly name: string;
  /** A fresh, empty store. Called once per test. */
  readonly create: () => S | Promise<S>;
  /**
   * Another instance over the same backend as `store` (for example a second client on the same bucket,
   * database or directory), used for the cross-instance concurrency tests. Default: `store` itself.
   * Peers other than `store` are closed with their `close()` after use.
   */
  readonly peer?: (store: S) => MemoryStore | Promise<MemoryStore>;
  /** Removes what `create` made (bucket prefix, keys, directory) and closes the store. Runs even on failure. */
  readonly destroy?: (store: S) => void | Promise<void>;
  /**
   * The store implements `scope(tenant)`: run the tenant-isolation suite (SPEC §7) on `create`'s stores.
   * Every built-in store sets it.
   */
  readonly tenants?: boolean;
  /**
   * The store implements `writeWithinQuota`: quotas hold exactly under any concurrency. The quota suite
   * then checks that 150 concurrent creates (and growing edits), half through a peer, never overshoot.
   */
  readonly exactQuotas?: boolean;
  /**
   * A fresh, empty store whose files expire after `expireAfterSeconds` of the given `clock` (both always
   * set): runs the expiry suite (SPEC §7) with a fake clock, never waiting. Cleaned up with `destroy`.
   * Every built-in store gives it.
   */
  readonly createExpiring?: (options: Required<ExpiryOptions>) => S | Promise<S>;
  /**
   * The store implements `tenants()` and `purge()`: runs the erasure suite. `dump` reads every record the
   * medium holds for the store (keys and values, rows, objects, files) around the contract; the suite
   * checks that a purged tenant leaves no record naming it or holding what it wrote. Runs on
   * `createExpiring`'s stores when given (so access indexes exist), else on `create`'s.
   */
  readonly erasure?: {
    readonly dump: (store: S) => Promise<readonly RawRecord[]>;
    /**
     * `tenants()` pages in the byte order of `id + "/"` (an S3 bucket's key order), which differs from
     * the order of ids where one id extends another by `+`, `-` or `.`. Default false.
     */
    readonly tenantKeyOrder?: boolean;
    /** `create` makes tenants' stores, whose `purge()` works (default false: it must be a `TypeError`). */
    readonly createIsScoped?: boolean;
    /** The medium holds file contents as written (default true; false for an encrypting store). */
    readonly plaintext?: boolean;
  };
  readonly options?: ConformanceOptions;
  /** Suites not to register, by name (see `conformanceSuites`); an unknown name is a `TypeError`. */
  readonly skip?: readonly ConformanceSuiteName[];
}

/** What a suite of the table gets: the harness, and what the target asked of that suite. */
interface Setup<S extends MemoryStore> {
  readonly harness: Harness<S>;
  readonly target: ConformanceTarget<S>;
  readonly transcripts: readonly GoldenTranscript[];
  /** Set when the target gives `createExpiring`. */
  readonly expiring: ExpiringHarness<S> | undefined;
  /** Set when the target gives `erasure`. */
  readonly erasure: ErasureHarness<S> | undefined;
}

type Suite = <S extends MemoryStore>(setup: Setup<S>) => void;

/** Every suite, by the name `skip` and `conformanceSuites` use, in the order they register. */
const SUITES = {
  golden: <S extends MemoryStore>(s: Setup<S>) => goldenSuite(s.harness, s.transcripts),
  reserved: <S extends MemoryStore>(s: Setup<S>) => reservedSuite(s.harness),
  failure: <S extends MemoryStore>(s: Setup<S>) => failureSuite(s.harness),
  concurrency: <S extends MemoryStore>(s: Setup<S>) => concurrencySuite(s.harness),
  hostile: <S extends MemoryStore>(s: Setup<S>) => hostileSuite(s.harness),
  quota: <S extends MemoryStore>(s: Setup<S>) => quotaSuite(s.harness, s.target.exactQuotas === true),
  tenants: <S extends MemoryStore>(s: Setup<S>) => {
    if (s.target.tenants) tenantSuite(s.harness);
  },
  expiry: <S extends MemoryStore>(s: Setup<S>) => {
    if (s.expiring) expirySuite(s.expiring);
  },
  erasure: <S extends MemoryStore>(s: Setup<S>) => {
    if (s.erasure) erasureSuite(s.erasure);
  },
  mounts: <S extends MemoryStore>(s: Setup<S>) => mountsSuite(s.harness),
  search: <S extends MemoryStore>(s: Setup<S>) => searchSuite(s.harness, s.target.tenants === true),
  windows: <S extends MemoryStore>(s: Setup<S>) => windowsSuite(s.harness, s.target.erasure !== undefined),
} satisfies Record<string, Suite>;

/** The name of one suite of the conformance: what `skip` lists and `conformanceSuites` is keyed by. */
export type ConformanceSuiteName = keyof typeof SUITES;

const SUITE_TABLE: Readonly<Record<ConformanceSuiteName, Suite>> = SUITES;
const SUITE_NAMES = Object.keys(SUITES) as ConformanceSuiteName[];
const RUNNER_FUNCTIONS = ["describe", "it", "expect"] as const;

/**
 * Registers the conformance suite for a {@link MemoryStore}: every golden transcript of SPEC.md
 * (`golden`), reserved names (`reserved`), storage failures (`failure`), cross-instance concurrency
 * (`concurrency`), hostile input (`hostile`) and quotas (`quota`); with `tenants`, tenant isolation
 * (`tenants`); with `createExpiring`, expiry (`expiry`); with `erasure`, tenants() and purge() down to the raw medium (`erasure`); two of the target's stores mounted in one `/memories` (`mounts`); `memory_search` (`search`); `view_range` windows, through the store's `readLines` where it has one (`windows`). `skip` turns suites off by name. Registers with
 * vitest unless the target passes its runner's `describe`, `it` and `expect`. Call it at the top level
 * of a test file.
 *
 * @example
 * ```ts
 * // test/conformance.test.ts
 * import { InMemoryStore } from "@mem/core";
 * import { runConformance } from "@mem/conformance";
 *
 * runConformance({
 *   name: "InMemoryStore",
 *   create: () => new InMemoryStore(),
 *   tenants: true,
 *   createExpiring: (expiry) => new InMemoryStore(expiry),
 * });
 * ```
 */
export function runConformance<S extends MemoryStore>(target: ConformanceTarget<S>): void {
  const skip = checkSkip(target.skip);
  register(
    target,
    SUITE_NAMES.filter((name) => !skip.has(name)),
  );
}

/**
 * Each suite alone, by name: `conformanceSuites.quota(target)` registers only the quota suite, under the
 * same top-level `describe` as `runConformance` (whose `skip` it ignores).
 *
 * @example
 * ```ts
 * import { InMemoryStore } from "@mem/core";
 * import { conformanceSuites } from "@mem/conformance";
 *
 * conformanceSuites.golden({ name: "InMemoryStore", create: () => new InMemoryStore() });
 * ```
 */
export const conformanceSuites = Object.fromEntries(
  SUITE_NAMES.map((name) => [
    name,
    <S extends MemoryStore>(target: ConformanceTarget<S>) => register(target, [name]),
  ]),
) as Readonly<Record<ConformanceSuiteName, <S extends MemoryStore>(target: ConformanceTarget<S>) => void>>;

function checkSkip(skip: unknown): Set<ConformanceSuiteName> {
  if (skip === undefined) return new Set();
  if (!Array.isArray(skip))
    throw new TypeError('runConformance: option "skip" must be an array of suite names');
  for (const name of skip) {
    if (!(SUITE_NAMES as unknown[]).includes(name)) {
      throw new TypeError(
        `runConformance: option "skip" lists ${typeof name === "string" ? `"${name}"` : typeof name}, not a suite; the suites are ${SUITE_NAMES.join(", ")}`,
      );
    }
  }
  return new Set(skip as ConformanceSuiteName[]);
}

function runnerOf(target: Partial<ConformanceRunner>): ConformanceRunner {
  for (const name of RUNNER_FUNCTIONS) {
    if (target[name] !== undefined && typeof target[name] !== "function") {
      throw new TypeError(`runConformance: option "${name}" must be a function (the test runner's ${name})`);
    }
  }
  return {
    describe: target.describe ?? vitestRunner.describe,
    it: target.it ?? vitestRunner.it,
    expect: target.expect ?? vitestRunner.expect,
  };
}

function register<S extends MemoryStore>(
  target: ConformanceTarget<S>,
  names: readonly ConformanceSuiteName[],
): void {
  const runner = runnerOf(target);
  const options = target.options ?? {};
  const using = async (make: () => S | Promise<S>, body: (store: S) => Promise<void>) => {
    const store = await make();
    try {
      await body(store);
    } finally {
      await target.destroy?.(store);
    }
  };
  const harness: Harness<S> = {
    ...runner,
    withStore: (body) => using(target.create, body),
    async openPeer(store) {
      const peer = target.peer ? await target.peer(store) : store;
      return {
        peer,
        release: async () => {
          if (peer !== store) await peer.close?.();
        },
      };
    },
    timeout: options.timeout ?? 60_000,
    propertyRuns: options.propertyRuns ?? 40,
    concurrentEdits: Math.max(50, options.concurrentEdits ?? 50),
    concurrentCreates: Math.max(30, options.concurrentCreates ?? 30),
  };
  const createExpiring = target.createExpiring;
  const setup: Setup<S> = {
    harness,
    target,
    transcripts: [...loadGoldenTranscripts(), ...(options.extraTranscripts ?? [])],
    expiring: createExpiring && {
      ...harness,
      withExpiringStore: (clock, body) =>
        using(() => createExpiring({ expireAfterSeconds: 60, clock: clock.now }), body),
    },
    erasure: target.erasure && {
      ...harness,
      dump: target.erasure.dump,
      plaintext: target.erasure.plaintext !== false,
      createIsScoped: target.erasure.createIsScoped === true,
      tenantKeyOrder: target.erasure.tenantKeyOrder === true,
      withErasureStore: (clock, body) =>
        using(
          () =>
            createExpiring ? createExpiring({ expireAfterSeconds: 3600, clock: clock.now }) : target.create(),
          body,
        ),
    },
  };

  runner.describe(`memory store conformance: ${target.name}`, () => {
    for (const name of names) SUITE_TABLE[name](setup);
  });
}
