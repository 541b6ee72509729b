/**
 * The policies a mount sets for itself (its own quota, its own guard), chosen by the dispatcher for the
 * mount a write lands in. Decided from the mount table alone: no storage call.
 */

import { bothQuotas, type Quota, quotaFor } from "../quota.js";
import { type Guard, resolveGuard } from "../sensitive/guard.js";
import type { MemoryStore } from "../store.js";
import { mountsOf } from "./refusals.js";
import { ownerOf } from "./table.js";

/** The quota and guard one command runs under. */
export interface Policy {
  quota: Quota | null;
  guard: Guard | null;
}

/**
 * The policy for a write at the canonical `path` of `store`: `table` (from `executeCommand`'s options)
 * with the owning mount's own policies applied. A mount's `quota` is checked after the table's, against
 * the usage of that mount's store alone; a mount's `guard` replaces the table's. `null` when the store
 * has no mounts or the mount sets neither: `table` then holds as it is.
 */
export function mountPolicy(store: MemoryStore, path: string, table: Policy): Policy | null {
  const mounts = mountsOf(store);
  if (!mounts) return null;
  const mount = ownerOf(mounts, path);
  if (mount.quota === undefined && mount.guard === undefined) return null;
  return {
    quota:
      mount.quota === undefined ? table.quota : bothQuotas(table.quota, quotaFor(mount.store, mount.quota)),
    guard: mount.guard === undefined ? table.guard : resolveGuard(mount.guard),
  };
}
