/** A base for stores that wrap another store (limits, auditing, failure injection...). */

import type { ChangeContext } from "./actor.js";
import { usageOf } from "./quota.js";
import type {
  FileData,
  Listing,
  ListOptions,
  MemoryStore,
  PathLimits,
  Stat,
  StoreCapabilities,
  SweepResult,
  Usage,
  Version,
  WriteCondition,
} from "./store.js";

/**
 * Forwards every call to `inner`; override what the wrapper changes. The optional native `update` is
 * deliberately not forwarded: a wrapper that watches or changes writes must see every write, so edits
 * through a wrapper go through `read` and conditional `write` unless the wrapper opts in itself. For the
 * same reason `readOrList` is not forwarded: view through a wrapper calls its `read` and `list`.
 *
 * `usage`, `sweep` and `check` are forwarded (a wrapper that changes sizes overrides `usage`); `usage` falls
 * back to counting listings and `sweep` to removing nothing when `inner` lacks them. `scope` is not
 * forwarded: only the subclass knows how to wrap the inner store's scope, so a wrapper that supports
 * tenants defines `scope(tenant) { return new MyWrapper(this.inner.scope(tenant)) }` itself (the inner
 * store must have `scope`).
 *
 * @example
 * ```ts
 * import { ForwardingStore, InMemoryStore } from "@mem/core";
 *
 * class AuditedStore extends ForwardingStore {
 *   override async write(...args: Parameters<ForwardingStore["write"]>) {
 *     console.log("write", args[0]);
 *     return super.write(...args);
 *   }
 * }
 * const store = new AuditedStore(new InMemoryStore());
 * ```
 */
export class ForwardingStore implements MemoryStore {
  constructor(readonly inner: MemoryStore) {}

  get capabilities(): StoreCapabilities | undefined {
    return this.inner.capabilities;
  }
  get pathLimits(): PathLimits | undefined {
    return this.inner.pathLimits;
  }
  get maxFileBytes(): number | undefined {
    return this.inner.maxFileBytes;
  }
  get backend(): string | undefined {
    return this.inner.backend;
  }
  read(path: string): Promise<FileData | null> {
    return this.inner.read(path);
  }
  stat(path: string): Promise<Stat | null> {
    return this.inner.stat(path);
  }
  list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    return this.inner.list(dir, depth, options);
  }
  write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    context?: ChangeContext,
  ): Promise<{ version: Version }> {
    return this.inner.write(path, data, condition, context);
  }
  delete(path: string, context?: ChangeContext): Promise<boolean> {
    return this.inner.delete(path, context);
  }
  rename(from: string, to: string, context?: ChangeContext): Promise<void> {
    return this.inner.rename(from, to, context);
  }
  usage(): Promise<Usage> {
    return usageOf(this.inner);
  }
  async sweep(): Promise<SweepResult> {
    return (await this.inner.sweep?.()) ?? { paths: [], bytes: 0 };
  }
  async check(): Promise<void> {
    await this.inner.check?.();
  }
  isReservedName(name: string): boolean {
    return this.inner.isReservedName?.(name) ?? false;
  }
  async close(): Promise<void> {
    await this.inner.close?.();
  }
}
