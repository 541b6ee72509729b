import type { MemoryStore } from "@mem/core";
import type { ConformanceRunner } from "../runner.js";

/** What every suite needs from `runConformance`'s target, with the defaults filled in, and the runner. */
export interface Harness<S extends MemoryStore> extends ConformanceRunner {
  /** Runs `body` against a fresh empty store and cleans the store up afterwards, even on failure. */
  withStore(body: (store: S) => Promise<void>): Promise<void>;
  /** Another instance over the same backend as `store`, and how to release it. */
  openPeer(store: S): Promise<{ peer: MemoryStore; release: () => Promise<void> }>;
  readonly timeout: number;
  readonly propertyRuns: number;
  readonly concurrentEdits: number;
  readonly concurrentCreates: number;
}
