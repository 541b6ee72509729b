/**
 * A store whose typed errors come from "another copy of @mem/core": classes with the same names, codes
 * and fields that share no prototype with the caller's copy (or, with `plain`, plain objects of that
 * shape). A wrapper that tests errors with `instanceof` misreads them; one that uses `isStoreError` not.
 */
const CODES = new Set([
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "NOT_A_DIRECTORY",
  "CONFLICT",
  "QUOTA_EXCEEDED",
  "STORE_FAILURE",
]);

const copies = new Map<string, new (message: string) => Error>();

/** One class per error name, built here: the "second copy" of core's error classes. */
const copyOf = (name: string): (new (message: string) => Error) => {
  let copy = copies.get(name);
  if (!copy) {
    copy = class extends Error {
      constructor(message: string) {
        super(message);
        this.name = name;
      }
    };
    copies.set(name, copy);
  }
  return copy;
};

export interface ForeignErrorOptions {
  /** Plain objects of the errors' shape instead of instances of look-alike classes. */
  plain?: boolean;
  /** Called with each error converted, e.g. to count them. */
  onError?: (code: string) => void;
}

const convert = (error: unknown, options: ForeignErrorOptions): unknown => {
  const code = (error as { code?: unknown } | null)?.code;
  if (!(error instanceof Error) || typeof code !== "string" || !CODES.has(code)) return error;
  options.onError?.(code);
  const fields = { ...error, name: error.name, code };
  if (options.plain) return { ...fields, message: error.message };
  return Object.assign(new (copyOf(error.name))(error.message), fields);
};

/** `store` with every typed error it throws (its scopes' too) replaced by a foreign copy. */
export const withForeignErrors = <T extends object>(store: T, options: ForeignErrorOptions = {}): T =>
  new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        let out: unknown;
        try {
          out = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw convert(error, options);
        }
        if (property === "scope" && typeof out === "object" && out !== null) {
          return withForeignErrors(out, options);
        }
        return out instanceof Promise
          ? out.catch((error: unknown) => {
              throw convert(error, options);
            })
          : out;
      };
    },
  });
