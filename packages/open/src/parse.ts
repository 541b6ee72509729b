/**
 * Store URLs name a memory store:
 *
 *   fs:./memory                                   a local directory
 *   redis://host:6379/prefix (or rediss://)       Redis, keys under the prefix
 *   s3://bucket/prefix?endpoint=http://...        S3 or an S3-compatible server
 *   postgres://host:5432/database                 PostgreSQL
 *   sqlite:./memory.db                            a SQLite file
 *   <name>:...                                    a scheme added with registerScheme
 *   encrypted+<any of the above>                  the same, encrypted at rest (key from MEMORY_KEY)
 *   <any of the above>?tenant=<id>                one tenant's scope of that store
 *   <any of the above>?history                    earlier versions kept (see @mem/history)
 *
 * Parsing is pure: no environment, no I/O.
 */
import { checkTenant } from "@mem/core";
import type { Backend } from "./backend.js";
import { StoreUrlError } from "./errors.js";
import { maskUrl } from "./mask.js";
import { BUILT_IN, type PlainStoreSpec, schemeForms, schemeOf } from "./registry.js";

export interface StoreSpec {
  /** The backend and its settings. */
  backend: PlainStoreSpec;
  /** `encrypted+`: the backend's files are encrypted with the key from `MEMORY_KEY`. */
  encrypted: boolean;
  /** `?tenant=`: the store is this tenant's scope. */
  tenant: string | undefined;
  /** `?history`: earlier versions of every file are kept (`HistoryStore`), even in a store without any yet. */
  history?: boolean;
}

const WRAPPER_FORMS = ["encrypted+<one of the above>", "<any of them>?tenant=<id>", "<any of them>?history"];

/** The accepted forms of the built-in schemes, for help texts (`storeUrlForms()` adds registered ones). */
export const STORE_URL_FORMS: readonly string[] = [...BUILT_IN.map((b) => b.form), ...WRAPPER_FORMS];

/** The accepted forms now, registered schemes included, for help texts and usage messages. */
export const storeUrlForms = (): string[] => [...schemeForms(), ...WRAPPER_FORMS];

const ENCRYPTED = "encrypted+";

const usage = (): string => `Use one of: ${storeUrlForms().join(", ")}.`;

/**
 * Parses a store URL. Throws `StoreUrlError` with a message fit for the terminal; messages never repeat
 * the URL's password.
 *
 * @example
 * ```ts
 * parseStoreUrl("encrypted+redis://127.0.0.1:6379/notes?tenant=alice");
 * // { backend: { kind: "redis", url: "redis://127.0.0.1:6379", prefix: "notes" }, encrypted: true, tenant: "alice" }
 * ```
 */
export const parseStoreUrl = (url: string): StoreSpec => {
  let rest = url;
  const encrypted = rest.startsWith(ENCRYPTED);
  if (encrypted) {
    rest = rest.slice(ENCRYPTED.length);
    if (rest.startsWith(ENCRYPTED)) throw new StoreUrlError("Store URL: encrypted+ may appear only once.");
  }
  const { url: plain, tenant, history } = takeOwnOptions(rest);
  return { backend: parsePlain(plain), encrypted, tenant, ...(history && { history }) };
};

/** Takes `tenant=` and `history` out of the query, leaving the rest for the backend. */
const takeOwnOptions = (raw: string): { url: string; tenant: string | undefined; history: boolean } => {
  const question = raw.indexOf("?");
  if (question < 0) return { url: raw, tenant: undefined, history: false };
  const afterQuery = raw.slice(question + 1);
  const hashAt = afterQuery.indexOf("#");
  const query = new URLSearchParams(hashAt < 0 ? afterQuery : afterQuery.slice(0, hashAt));
  const hash = hashAt < 0 ? "" : afterQuery.slice(hashAt);
  const tenants = query.getAll("tenant");
  const histories = query.getAll("history");
  if (tenants.length === 0 && histories.length === 0) return { url: raw, tenant: undefined, history: false };
  if (tenants.length > 1) throw new StoreUrlError("Store URL: tenant may be given only once.");
  if (histories.length > 1) throw new StoreUrlError("Store URL: history may be given only once.");
  const tenant = tenants[0];
  if (tenant !== undefined) {
    try {
      checkTenant(tenant);
    } catch (error) {
      throw new StoreUrlError(`Store URL: ${(error as Error).message}.`);
    }
  }
  const flag = histories[0];
  if (flag !== undefined && flag !== "" && flag !== "true") {
    throw new StoreUrlError("Store URL: history takes no value (write ?history or ?history=true).");
  }
  query.delete("tenant");
  query.delete("history");
  const others = query.toString();
  return {
    url: `${raw.slice(0, question)}${others === "" ? "" : `?${others}`}${hash}`,
    tenant,
    history: flag !== undefined,
  };
};

// The authority of `scheme://authority/...`, and what follows it.
const AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)([\s\S]*)$/i;

const parsePlain = (url: string): PlainStoreSpec => {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) throw new StoreUrlError(`Store URL "${maskUrl(url)}" has no scheme. ${usage()}`);
  // An "@" after the host is almost always a password holding an unencoded "/", "?" or "#": the host
  // would then be read from the password. Refused, so that nothing is sent to such a host.
  if (AUTHORITY.exec(url)?.[2]?.includes("@")) {
    throw new StoreUrlError(
      `Store URL "${maskUrl(url)}" has an "@" after its host: percent-encode the password's reserved characters (/ as %2F, ? as %3F, # as %23, @ as %40).`,
    );
  }
  const backend = schemeOf(scheme);
  if (!backend) throw new StoreUrlError(`Unknown store URL scheme "${scheme}:". ${usage()}`);
  if (backend.kind === "fs" && url.includes("?")) {
    throw new StoreUrlError(
      'Store URL: fs: takes no query other than ?tenant= (a directory name with "?" cannot be used).',
    );
  }
  return backend.parse(url);
};

/** The backend that reads and opens `spec`. */
export const backendOf = (spec: PlainStoreSpec): Backend<PlainStoreSpec> => {
  const backend =
    spec.kind === "registered"
      ? schemeOf(spec.scheme)
      : // Each built-in spec's kind names exactly one backend, whose methods take that spec.
        (BUILT_IN.find((b) => b.kind === spec.kind) as unknown as Backend<PlainStoreSpec>);
  if (backend === undefined)
    throw new StoreUrlError(
      `Unknown store URL scheme "${spec.kind === "registered" ? spec.scheme : spec.kind}:". ${usage()}`,
    );
  return backend;
};

/**
 * A one-line description of where the memory lives, without credentials.
 *
 * @example
 * ```ts
 * describeStore(parseStoreUrl("encrypted+fs:./m?tenant=bob")); // "directory ./m, encrypted, tenant bob"
 * ```
 */
export const describeStore = (spec: StoreSpec): string =>
  [
    backendOf(spec.backend).describe(spec.backend),
    ...(spec.encrypted ? ["encrypted"] : []),
    ...(spec.tenant === undefined ? [] : [`tenant ${spec.tenant}`]),
    ...(spec.history ? ["with history"] : []),
  ].join(", ");
