/**
 * Store URLs pick the demo's memory backend. Parsing is pure: no environment, no I/O, so every rule
 * here is unit-tested on its own.
 *
 *   fs:./memory-demo                              a local directory
 *   redis://host:6379/prefix (or rediss://)       Redis, keys under the prefix
 *   s3://bucket/prefix?endpoint=http://...        S3 or an S3-compatible server
 *   encrypted+<any of the above>                  the same, encrypted at rest
 */

export type StoreSpec =
  | { kind: "fs"; root: string }
  | { kind: "redis"; url: string; prefix: string }
  | {
      kind: "s3";
      bucket: string;
      prefix: string;
      endpoint: string | undefined;
      region: string | undefined;
      forcePathStyle: boolean;
    }
  | { kind: "encrypted"; inner: PlainStoreSpec };

export type PlainStoreSpec = Exclude<StoreSpec, { kind: "encrypted" }>;

/** The prefix used when a Redis or S3 URL names none, so the demo never works on a whole keyspace. */
export const DEFAULT_PREFIX = "mem-demo/";

export const STORE_URL_FORMS = [
  "fs:<directory>",
  "redis://host:port/<prefix>",
  "s3://<bucket>/<prefix>?endpoint=<url>&region=<region>",
  "encrypted+<one of the above>",
] as const;

export class StoreUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreUrlError";
  }
}

const ENCRYPTED = "encrypted+";

/**
 * Parses a store URL. Throws `StoreUrlError` with a message fit for the terminal; the message never
 * repeats credentials that the URL may hold.
 *
 * @example
 * ```ts
 * parseStoreUrl("s3://notes/demo?endpoint=http://127.0.0.1:9000");
 * // { kind: "s3", bucket: "notes", prefix: "demo/", endpoint: "http://127.0.0.1:9000", region: undefined, forcePathStyle: true }
 * ```
 */
export const parseStoreUrl = (url: string): StoreSpec => {
  if (url.startsWith(ENCRYPTED)) {
    const inner = url.slice(ENCRYPTED.length);
    if (inner.startsWith(ENCRYPTED)) throw new StoreUrlError("Store URL: encrypted+ may appear only once.");
    return { kind: "encrypted", inner: parsePlain(inner) };
  }
  return parsePlain(url);
};

const parsePlain = (url: string): PlainStoreSpec => {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  switch (scheme) {
    case "fs":
      return parseFs(url.slice("fs:".length));
    case "redis":
    case "rediss":
      return parseRedis(url);
    case "s3":
      return parseS3(url);
    case undefined:
      throw new StoreUrlError(`Store URL "${redact(url)}" has no scheme. ${usage()}`);
    default:
      throw new StoreUrlError(`Unknown store URL scheme "${scheme}:". ${usage()}`);
  }
};

const parseFs = (path: string): PlainStoreSpec => {
  // `fs://dir` would read as a host; the form is `fs:<path>`.
  const root = path.startsWith("//") ? path.slice(2) : path;
  if (root === "") throw new StoreUrlError('Store URL "fs:" needs a directory, e.g. fs:./memory-demo');
  if (root.includes("\0")) throw new StoreUrlError("Store URL: the fs directory contains a NUL character.");
  return { kind: "fs", root };
};

const parseRedis = (raw: string): PlainStoreSpec => {
  const url = parseUrl(raw);
  if (url.hostname === "")
    throw new StoreUrlError(`Store URL "${redact(raw)}" needs a host, e.g. redis://127.0.0.1:6379/demo`);
  if (url.search !== "" || url.hash !== "") {
    throw new StoreUrlError(
      `Store URL "${redact(raw)}" takes no query or fragment; the path is the key prefix.`,
    );
  }
  const prefix = decodePart(url.pathname.slice(1), raw);
  const server = new URL(url.href);
  server.pathname = "";
  return {
    kind: "redis",
    url: server.href.replace(/\/$/, ""),
    prefix: prefix === "" ? DEFAULT_PREFIX : prefix,
  };
};

const S3_QUERY = new Set(["endpoint", "region", "forcePathStyle"]);
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

const parseS3 = (raw: string): PlainStoreSpec => {
  const url = parseUrl(raw);
  if (url.username !== "" || url.password !== "") {
    throw new StoreUrlError(
      "Store URL: s3:// URLs must not hold credentials; use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.",
    );
  }
  if (url.port !== "")
    throw new StoreUrlError(
      "Store URL: an s3:// URL names a bucket, not a host:port; pass the server as ?endpoint=",
    );
  const bucket = url.hostname;
  if (!BUCKET.test(bucket)) {
    throw new StoreUrlError(
      `Store URL: "${bucket}" is not a valid bucket name (3-63 of a-z, 0-9, '.', '-').`,
    );
  }
  for (const key of url.searchParams.keys()) {
    if (!S3_QUERY.has(key)) {
      throw new StoreUrlError(`Store URL: unknown s3 option "${key}"; known: ${[...S3_QUERY].join(", ")}.`);
    }
  }
  const endpoint = url.searchParams.get("endpoint") ?? undefined;
  if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) {
    throw new StoreUrlError("Store URL: endpoint must be an http:// or https:// URL.");
  }
  const pathStyle = url.searchParams.get("forcePathStyle");
  if (pathStyle !== null && pathStyle !== "true" && pathStyle !== "false") {
    throw new StoreUrlError('Store URL: forcePathStyle must be "true" or "false".');
  }
  let prefix = decodePart(url.pathname.slice(1), raw);
  if (prefix === "") prefix = DEFAULT_PREFIX;
  else if (!prefix.endsWith("/")) prefix += "/";
  return {
    kind: "s3",
    bucket,
    prefix,
    endpoint,
    region: url.searchParams.get("region") ?? undefined,
    // Local servers (MinIO, s3rver) serve buckets by path, not by host name.
    forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === "true",
  };
};

const parseUrl = (raw: string): URL => {
  try {
    return new URL(raw);
  } catch {
    throw new StoreUrlError(`Store URL "${redact(raw)}" is malformed. ${usage()}`);
  }
};

const decodePart = (part: string, raw: string): string => {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new StoreUrlError(`Store URL "${redact(raw)}" has a malformed percent-encoding.`);
  }
};

/** The URL with any `user:password@` part masked, for messages. */
export const redact = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1***@");

const usage = (): string => `Use one of: ${STORE_URL_FORMS.join(", ")}.`;

/** A one-line description of where the memory lives, without credentials. */
export const describeStore = (spec: StoreSpec): string => {
  switch (spec.kind) {
    case "fs":
      return `directory ${spec.root}`;
    case "redis":
      return `Redis ${redact(spec.url)}, prefix "${spec.prefix}"`;
    case "s3":
      return `S3 bucket ${spec.bucket}, prefix "${spec.prefix}"${spec.endpoint ? ` at ${spec.endpoint}` : ""}`;
    case "encrypted":
      return `${describeStore(spec.inner)}, encrypted`;
  }
};
