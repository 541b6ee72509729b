import { ForwardingStore, type MemoryStore } from "../../src/index.js";

const COUNTED = ["read", "stat", "list", "write", "delete", "rename", "usage", "files", "update"] as const;

/** Records every call that reaches the store, by method name, in order. */
export class CountingStore extends ForwardingStore {
  readonly names: string[] = [];
  constructor(inner: MemoryStore) {
    super(inner);
    for (const name of COUNTED) {
      const own = (this as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
      if (typeof own !== "function") continue;
      (this as unknown as Record<string, unknown>)[name] = (...args: unknown[]) => {
        this.names.push(name);
        return own.apply(this, args);
      };
    }
  }

  /** How many calls reached the store. */
  get calls(): number {
    return this.names.length;
  }
}
