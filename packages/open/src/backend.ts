/** What one kind of store URL contributes: how to read it, describe it and open it. */
import type { MemoryStore } from "@mem/core";

export interface OpenContext {
  env: Readonly<Record<string, string | undefined>>;
  /** The directory relative fs paths are resolved against. */
  cwd: string;
  /** Passed to the store as its `expireAfterSeconds` (SPEC §7); unset: files never expire. */
  expireAfterSeconds?: number;
  /** `false`: a store that does not exist is not created; opening it throws `NoStoreError`. Default `true`. */
  create?: boolean;
}

export interface Backend<S extends { kind: string }> {
  /** The `kind` of the specs this backend parses. */
  readonly kind: S["kind"];
  /** URL schemes, lower case, without the colon. */
  readonly schemes: readonly string[];
  /** The accepted form, for usage messages. */
  readonly form: string;
  /** Reads a URL whose scheme is one of `schemes`. Pure: no environment, no I/O. Throws `StoreUrlError`. */
  parse(url: string): S;
  /** A one-line description without credentials. */
  describe(spec: S): string;
  open(spec: S, context: OpenContext): Promise<MemoryStore>;
}

/** The store option for the context's expiry: `{ expireAfterSeconds }`, or nothing when unset. */
export const expiryOption = (context: OpenContext): { expireAfterSeconds?: number } =>
  context.expireAfterSeconds === undefined ? {} : { expireAfterSeconds: context.expireAfterSeconds };

/** The prefix used when a Redis or S3 URL names none, so a store never works on a whole keyspace. */
export const DEFAULT_PREFIX = "mem-demo/";
