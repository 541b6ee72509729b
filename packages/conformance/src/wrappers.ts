/**
 * Thin stores around the store under test, for behaviour a plain store cannot show on demand:
 * reserved names and storage failures.
 */
import {
  type FileData,
  ForwardingStore,
  type Listing,
  type MemoryStore,
  type Stat,
  StoreFailureError,
  type WriteCondition,
} from "@mem/core";

/** `inner`, plus one extra name reserved for bookkeeping. */
export class ReservingStore extends ForwardingStore {
  readonly #reserved: string;
  constructor(inner: MemoryStore, reserved: string) {
    super(inner);
    this.#reserved = reserved;
  }
  override isReservedName(name: string): boolean {
    return name === this.#reserved || super.isReservedName(name);
  }
}

export type StoreOperation = "read" | "stat" | "list" | "write" | "delete" | "rename";

/** `inner`, except that the chosen operations throw `makeError()` instead of reaching it. */
export class FailingStore extends ForwardingStore {
  readonly #failing: ReadonlySet<StoreOperation>;
  readonly #makeError: () => Error;
  constructor(
    inner: MemoryStore,
    failing: ReadonlySet<StoreOperation>,
    makeError: () => Error = () => new StoreFailureError("simulated outage"),
  ) {
    super(inner);
    this.#failing = failing;
    this.#makeError = makeError;
  }
  #guard(operation: StoreOperation): void {
    if (this.#failing.has(operation)) throw this.#makeError();
  }
  override async read(path: string): Promise<FileData | null> {
    this.#guard("read");
    return super.read(path);
  }
  override async stat(path: string): Promise<Stat | null> {
    this.#guard("stat");
    return super.stat(path);
  }
  override async list(dir: string, depth: number): Promise<Listing | null> {
    this.#guard("list");
    return super.list(dir, depth);
  }
  override async write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
  ): Promise<{ version: string }> {
    this.#guard("write");
    return super.write(path, data, condition);
  }
  override async delete(path: string): Promise<boolean> {
    this.#guard("delete");
    return super.delete(path);
  }
  override async rename(from: string, to: string): Promise<void> {
    this.#guard("rename");
    return super.rename(from, to);
  }
}
