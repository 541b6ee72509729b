/**
 * Every kind of store a URL can name: the built-in schemes, and those an application or a third-party
 * adapter adds with `registerScheme`. Parsing, descriptions, usage messages and opening follow from here.
 */
import type { MemoryStore } from "@mem/core";
import { anthropicBackend } from "./anthropic.js";
import type { Backend, OpenContext } from "./backend.js";
import { StoreSetupError } from "./errors.js";
import { fsBackend } from "./fs.js";
import { maskUrl } from "./mask.js";
import { postgresBackend } from "./postgres.js";
import { redisBackend } from "./redis.js";
import { s3Backend } from "./s3.js";
import { sqliteBackend } from "./sqlite.js";

export const BUILT_IN = [
  fsBackend,
  redisBackend,
  s3Backend,
  postgresBackend,
  sqliteBackend,
  anthropicBackend,
] as const;

type SpecOf<B> = B extends { parse(url: string): infer S } ? S : never;

/** A URL of a scheme added with `registerScheme`: the factory gets `url` as it is. */
export interface RegisteredSpec {
  kind: "registered";
  /** The scheme, lower case, without the colon. */
  scheme: string;
  /** The URL without `encrypted+`, `?tenant=` and `?history`; may hold credentials (show it through `maskUrl`). */
  url: string;
}

/** A store URL without its `encrypted+`, `?tenant=` and `?history` parts, read by its scheme. */
export type PlainStoreSpec = SpecOf<(typeof BUILT_IN)[number]> | RegisteredSpec;

/**
 * Builds the store a URL of a registered scheme names. `url` is the URL without `encrypted+`, `?tenant=`
 * and `?history` (those are applied around the store it returns); `context` holds `env`, `cwd`, `create`
 * and `expireAfterSeconds`, which the store should honour.
 */
export type SchemeFactory = (url: string, context: OpenContext) => MemoryStore | Promise<MemoryStore>;

export interface SchemeOptions {
  /** The accepted form, for usage messages and `mem --help`. Default `<name>:...`. */
  form?: string;
  /** A one-line description of the store a URL names. Masked with `maskUrl`. Default: the masked URL. */
  describe?: (url: string) => string;
  /** Replace a built-in scheme or an earlier registration of the same name. Default `false`: a `TypeError`. */
  replace?: boolean;
}

// A scheme as RFC 3986 allows it, lower case, short; `encrypted` is the prefix `encrypted+` reads.
const NAME = /^[a-z][a-z0-9+.-]{0,31}$/;

// Shared through the global object, so that an adapter built against another copy of this package (its
// own node_modules) registers where `mem` and `openStore` look.
const REGISTRY = Symbol.for("@mem/open.schemes");
type Registry = Map<string, Backend<RegisteredSpec>>;
const registry = (): Registry => {
  const global = globalThis as { [REGISTRY]?: Registry };
  global[REGISTRY] ??= new Map();
  return global[REGISTRY];
};

const builtIn = (scheme: string) => BUILT_IN.find((b) => b.schemes.includes(scheme));

/**
 * Makes `name:` URLs open with `factory`, everywhere store URLs are read: `openStore`, `mem`, `mem mcp`.
 * `encrypted+`, `?tenant=` (on a store with `scope`), `?history`, `create: false` (passed on in the
 * context) and `check` work on it as on the built-in schemes. Throws `TypeError` for a name that is not a
 * lower-case URL scheme (a letter, then up to 31 of `a-z 0-9 + . -`, not `encrypted`), a factory that is
 * not a function, bad options, or a name already taken without `replace: true`.
 *
 * @example
 * ```ts
 * import { InMemoryStore } from "@mem/core";
 * import { openStore, registerScheme } from "@mem/open";
 *
 * registerScheme("memory", () => new InMemoryStore(), { form: "memory:<name>" });
 * const store = await openStore("memory:scratch?history");
 * ```
 */
export const registerScheme = (name: string, factory: SchemeFactory, options: SchemeOptions = {}): void => {
  if (typeof name !== "string" || !NAME.test(name) || name === "encrypted" || name.startsWith("encrypted+")) {
    throw new TypeError(
      `registerScheme: name must be a lower-case URL scheme without the colon (a letter, then up to 31 of a-z 0-9 + . -, not "encrypted"), got ${typeof name === "string" ? JSON.stringify(name.slice(0, 40)) : typeof name}`,
    );
  }
  if (typeof factory !== "function") {
    throw new TypeError(
      `registerScheme: factory must be a function (url, context) => store, got ${typeof factory}`,
    );
  }
  if (typeof options !== "object" || options === null) {
    throw new TypeError("registerScheme: options must be an object");
  }
  const { form = `${name}:...`, describe, replace = false } = options;
  if (typeof form !== "string" || form.trim() === "") {
    throw new TypeError("registerScheme: options.form must be a non-empty string");
  }
  if (describe !== undefined && typeof describe !== "function") {
    throw new TypeError("registerScheme: options.describe must be a function (url) => string");
  }
  if (typeof replace !== "boolean") throw new TypeError("registerScheme: options.replace must be a boolean");
  if (!replace && (builtIn(name) || registry().has(name))) {
    throw new TypeError(
      `registerScheme: "${name}:" is already ${builtIn(name) ? "a built-in scheme" : "registered"}; pass { replace: true } to replace it`,
    );
  }
  registry().set(name, {
    kind: "registered",
    schemes: [name],
    form,
    parse: (url) => ({ kind: "registered", scheme: name, url }),
    describe: (spec) => maskUrl(describe ? String(describe(spec.url)) : spec.url),
    async open(spec, context) {
      let store: unknown;
      try {
        store = await factory(spec.url, context);
      } catch (error) {
        throw masked(error);
      }
      if (typeof store !== "object" || store === null || typeof (store as MemoryStore).read !== "function") {
        throw new StoreSetupError(`The factory of "${name}:" URLs returned no store.`);
      }
      return store as MemoryStore;
    },
  });
};

/**
 * `error` with any URL credentials in its message masked: a factory is third-party code that may quote the
 * URL it was given. The error is kept (its type is what callers test), only its message changes.
 */
const masked = (error: unknown): unknown => {
  if (error instanceof Error) {
    const message = maskUrl(error.message);
    if (message !== error.message) {
      try {
        Object.defineProperty(error, "message", { value: message, configurable: true, writable: true });
      } catch {
        return new StoreSetupError(message);
      }
    }
  }
  return error;
};

/** The scheme that reads `scheme:` URLs (lower case, no colon): a registered one first, then a built-in. */
export const schemeOf = (scheme: string): Backend<PlainStoreSpec> | undefined =>
  // Each spec's kind names exactly one backend, whose methods take that spec.
  (registry().get(scheme) ?? builtIn(scheme)) as unknown as Backend<PlainStoreSpec> | undefined;

/** The forms of every scheme a URL can name now: the built-in ones (unless replaced) and the registered ones. */
export const schemeForms = (): string[] => [
  ...BUILT_IN.filter((b) => !b.schemes.some((s) => registry().has(s))).map((b) => b.form),
  ...[...registry().values()].map((b) => b.form),
];
