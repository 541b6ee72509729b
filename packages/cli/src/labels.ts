/**
 * Which store an error came from, so that `mem` can say so (`mem copy A B` uses two). Errors are marked,
 * not replaced: core tells store errors apart by their type, and a marked error keeps it.
 */
import type { MemoryStore } from "@mem/core";

const labels = new WeakMap<object, string>();

/** The description of the store `error` came from, if it came from one. */
export const storeOfError = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null ? labels.get(error) : undefined;

/** Marks `error` as coming from the store `what` describes, unless a store is already named for it. */
export const markError = (error: unknown, what: string): void => {
  if (typeof error === "object" && error !== null && !labels.has(error)) labels.set(error, what);
};

/**
 * `store`, with every error of its methods marked with `what`. Methods are bound to the store itself
 * (stores keep private fields a proxy cannot reach), so `instanceof` and private state still hold.
 */
export const labelled = <S extends MemoryStore>(store: S, what: string): S =>
  new Proxy(store, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(target, args);
          if (result instanceof Promise) {
            return result.catch((error: unknown) => {
              markError(error, what);
              throw error;
            });
          }
          return result;
        } catch (error) {
          markError(error, what);
          throw error;
        }
      };
    },
  });
