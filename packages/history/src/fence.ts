/**
 * The erasure fence of the `HistoryStore`s of one store and its scopes, in this process: while a tenant
 * is purged, a change to it (or to a tenant nested in it) is refused with `ErasingError` (SPEC §7), and
 * the purge first waits for the changes already under way, so none of them (a version, its path file, a
 * change record, each a write of its own) lands after the erasure. When the purge ends, the fence ends:
 * the tenant is empty and writable again.
 */
import { ErasingError } from "@mem/core";

/** The scope chain of a `HistoryStore`: its tenants joined by `/` (`""` for the unscoped store). */
const inside = (chain: string, of: string): boolean =>
  of === "" || chain === of || chain.startsWith(`${of}/`);

export class Fences {
  /** Purges running, by chain. */
  readonly #erasing = new Map<string, number>();
  /** Changes under way, by chain. */
  readonly #inflight = new Map<string, number>();
  readonly #drained: (() => void)[] = [];

  /** Runs `change` of `chain` unless that tenant is being erased (`ErasingError` for `path` then). */
  async change<T>(chain: string, path: string, change: () => Promise<T>): Promise<T> {
    for (const [erased, count] of this.#erasing) {
      if (count > 0 && inside(chain, erased)) throw new ErasingError(path);
    }
    this.#inflight.set(chain, (this.#inflight.get(chain) ?? 0) + 1);
    try {
      return await change();
    } finally {
      const left = this.#inflight.get(chain)! - 1;
      if (left === 0) this.#inflight.delete(chain);
      else this.#inflight.set(chain, left);
      for (const wake of this.#drained.splice(0)) wake();
    }
  }

  /** Fences `chain` (and the tenants nested in it), waits for its changes under way, then runs `purge`. */
  async erase<T>(chain: string, purge: () => Promise<T>): Promise<T> {
    this.#erasing.set(chain, (this.#erasing.get(chain) ?? 0) + 1);
    try {
      while ([...this.#inflight.keys()].some((c) => inside(c, chain))) {
        await new Promise<void>((resolve) => this.#drained.push(resolve));
      }
      return await purge();
    } finally {
      const left = this.#erasing.get(chain)! - 1;
      if (left === 0) this.#erasing.delete(chain);
      else this.#erasing.set(chain, left);
    }
  }
}
