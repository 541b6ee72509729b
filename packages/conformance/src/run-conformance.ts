import type { ExpiryOptions, MemoryStore } from "@mem/core";
import { describe } from "vitest";
import { type GoldenTranscript, loadGoldenTranscripts } from "./golden.js";
import { concurrencySuite } from "./suites/concurrency-suite.js";
import { erasureSuite, type RawRecord } from "./suites/erasure-suite.js";
import { type ExpiringHarness, expirySuite } from "./suites/expiry-suite.js";
import { failureSuite } from "./suites/failure-suite.js";
import { goldenSuite } from "./suites/golden-suite.js";
import type { Harness } from "./suites/harness.js";
import { hostileSuite } from "./suites/hostile-suite.js";
import { quotaSuite } from "./suites/quota-suite.js";
import { reservedSuite } from "./suites/reserved-suite.js";
import { tenantSuite } from "./suites/tenant-suite.js";

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

export interface ConformanceTarget<S extends MemoryStore = MemoryStore> {
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
}

/**
 * Registers the conformance suite for a {@link MemoryStore} with vitest: every golden transcript of
 * SPEC.md, reserved names, storage failures, cross-instance concurrency, hostile input and quotas; with
 * `tenants`, tenant isolation; with `createExpiring`, expiry. Call it at the top level of a test file.
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
  const transcripts = [...loadGoldenTranscripts(), ...(options.extraTranscripts ?? [])];

  describe(`memory store conformance: ${target.name}`, () => {
    goldenSuite(harness, transcripts);
    reservedSuite(harness);
    failureSuite(harness);
    concurrencySuite(harness);
    hostileSuite(harness);
    quotaSuite(harness, target.exactQuotas === true);
    if (target.tenants) tenantSuite(harness);
    const createExpiring = target.createExpiring;
    if (createExpiring) {
      const expiring: ExpiringHarness<S> = {
        ...harness,
        withExpiringStore: (clock, body) =>
          using(() => createExpiring({ expireAfterSeconds: 60, clock: clock.now }), body),
      };
      expirySuite(expiring);
    }
    const erasure = target.erasure;
    if (erasure) {
      erasureSuite({
        ...harness,
        dump: erasure.dump,
        plaintext: erasure.plaintext !== false,
        createIsScoped: erasure.createIsScoped === true,
        tenantKeyOrder: erasure.tenantKeyOrder === true,
        withErasureStore: (clock, body) =>
          using(
            () =>
              createExpiring
                ? createExpiring({ expireAfterSeconds: 3600, clock: clock.now })
                : target.create(),
            body,
          ),
      });
    }
  });
}
