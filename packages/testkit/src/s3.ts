/**
 * A real S3 server for tests: `s3rver` in-process on a free loopback port with a throw-away directory,
 * behind a small proxy that adds what s3rver lacks and real S3 has:
 * - conditional writes: `If-None-Match: *` and `If-Match: <etag>` on PutObject (and
 *   `x-amz-copy-source-if-match` on CopyObject) answer 412 PreconditionFailed when they do not hold;
 * - atomicity: mutations run one at a time and never overlap a read, so a precondition check and the
 *   write it guards are one step. s3rver answers a PutObject before the object's file is written and
 *   leaves an abandoned upload half-written, so its store is made to write whole objects first (see
 *   `s3rver-writes.ts`), a write keeps the lock until the store is idle, and a PutObject or CopyObject
 *   is answered only once the stored bytes hash to the object's ETag: readers never see a torn object;
 * - ListObjectsV2 as S3 does it: s3rver 3.7.1 encrypts continuation tokens with DES, which OpenSSL 3
 *   (Node >= 17) refuses, so every truncated listing fails with a 500; it also orders keys by directory
 *   walk, not by UTF-8 bytes. The proxy answers ListObjectsV2 itself from s3rver's object store, sorted
 *   and paginated as S3 does (`prefix`, `delimiter`, `max-keys`, `start-after`, `continuation-token`);
 * - DeleteObjects one key after another: s3rver deletes a batch in parallel, and its clean-up of empty
 *   directories then races and fails with a 500; its XML parser also turns keys like `0012` into numbers
 *   and trims spaces. The proxy parses the batch itself and deletes through s3rver's object store;
 * - object names up to S3's limits: s3rver stores an object as a file named after the key's last segment
 *   plus a suffix of up to 22 bytes, so names above 233 bytes fail with ENAMETOOLONG. Long last segments
 *   are stored under a hashed file name instead (see `storeLongNames`);
 * - request accounting per S3 operation, and injected faults: an error status, a hung request, a
 *   connection dropped before the server sees the request, or one dropped after the server applied it
 *   (the client never learns the outcome, as when a response is lost on the network).
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDirectory, trackDirectory } from "./cleanup.js";
import { completeWrites, type S3rverWritingStore } from "./s3rver-writes.js";

const HOST = "127.0.0.1";
/** How long a write may keep the lock waiting for s3rver's store to finish; it normally takes a few ms. */
const STORE_IDLE_TIMEOUT_MS = 10_000;
/** How long an answered write may take to read back whole before the client gets a 500 instead. */
const SETTLE_TIMEOUT_MS = 2_000;

/** S3 operations the proxy tells apart; anything else is `Other`. */
export type S3Operation =
  | "GetObject"
  | "HeadObject"
  | "PutObject"
  | "CopyObject"
  | "DeleteObject"
  | "DeleteObjects"
  | "ListObjectsV2"
  | "ListObjects"
  | "Other";

/** One request that reached the proxy. */
export interface S3RequestRecord {
  op: S3Operation;
  method: string;
  /** The object key, decoded; `undefined` for bucket-level requests. */
  key: string | undefined;
  /**
   * The status the client received; 0 when it received none (a hung request, a dropped connection, a
   * client that left).
   */
  status: number;
  /** True when the response came from an injected failure, not from the server. */
  injected: boolean;
}

/** Which requests an injected failure applies to. Every given field must match. */
export interface S3RequestMatch {
  op?: S3Operation;
  method?: string;
  /** Exact decoded key, or a predicate on it. */
  key?: string | ((key: string) => boolean);
  /**
   * `true`: only requests carrying a precondition (`If-Match`, `If-None-Match`,
   * `x-amz-copy-source-if-match`, `x-amz-copy-source-if-none-match`); `false`: only requests without one.
   */
  conditional?: boolean;
}

export interface S3FailureRule extends S3RequestMatch {
  /** Let this many matching requests through first; default 0. */
  skip?: number;
  /** Fail this many matching requests after the skipped ones; default 1, `Infinity` for all. */
  count?: number;
  /** HTTP status of the injected error; default 503. Ignored when `hang` is set. */
  status?: number;
  /** S3 error code in the XML body; default derived from the status (503 → `SlowDown`). */
  code?: string;
  /** Never answer: hold the request until the client gives up (for timeout tests). */
  hang?: boolean;
  /**
   * Drop the connection instead of answering. `"request"`: at once, so the server never sees the
   * request. `"response"`: after the server has handled it (a write is applied, a precondition
   * checked), in place of its answer, as when a response is lost on the network. Takes precedence over
   * `status`; ignored when `hang` is set.
   */
  drop?: "request" | "response";
  /**
   * Fault only this fraction (0–1) of the matching requests after the skipped ones, drawn from a
   * pseudo-random sequence seeded by `seed`, so a run is repeatable; `count` still bounds the total.
   */
  rate?: number;
  /** Seed of the `rate` sequence; default 1. */
  seed?: number;
}

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Counts and records of the requests that went through the proxy. */
export interface S3RequestLog {
  /** Every request since the start or the last `reset()`, in arrival order of their responses. */
  readonly records: readonly S3RequestRecord[];
  /** Requests per operation since the last `reset()`; operations never seen are absent. */
  counts(): Partial<Record<S3Operation, number>>;
  /** Total number of requests since the last `reset()`. */
  total(): number;
  reset(): void;
}

/** A running S3 test server. */
export interface S3TestServer {
  /** The proxy's URL (`http://127.0.0.1:{port}`): use with `forcePathStyle: true`. */
  readonly endpoint: string;
  /** s3rver itself, without the proxy: no conditional writes, no accounting. For seeding data fast. */
  readonly directEndpoint: string;
  readonly bucket: string;
  readonly region: string;
  readonly credentials: S3Credentials;
  readonly requests: S3RequestLog;
  /** Injects failures for matching requests; returns a function that removes the rule. */
  failNext(rule: S3FailureRule): () => void;
  /** Removes every failure rule and releases hung requests. */
  clearFailures(): void;
  /** Stops proxy and server and deletes their directory. Safe to call twice. */
  stop(): Promise<void>;
}

export interface StartS3Options {
  /** Bucket created at start; default `test-bucket`. */
  bucket?: string;
  /**
   * `false`: the proxy passes `If-None-Match` and `If-Match` through to s3rver, which ignores them, as a
   * server without conditional writes does; everything else it adds stays. Default `true`.
   */
  enforceConditions?: boolean;
}

interface S3rverObjectStore {
  getResourcePath(bucket: string, key?: string, resource?: string): string;
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag: string }>;
  getBucket(bucket: string): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<void>;
  listObjects(
    bucket: string,
    options: { prefix: string; maxKeys: number },
  ): Promise<{
    objects: { key: string; size: number; lastModifiedDate: Date; metadata: { etag: string } }[];
  }>;
}

interface S3rverInstance {
  store: S3rverObjectStore;
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

// s3rver is CommonJS without type declarations; `require` keeps the import exact under NodeNext.
const S3rver = createRequire(import.meta.url)("s3rver") as S3rverConstructor;

const ERROR_CODES: Record<number, string> = {
  400: "InvalidRequest",
  403: "AccessDenied",
  404: "NoSuchKey",
  409: "ConditionalRequestConflict",
  412: "PreconditionFailed",
  500: "InternalError",
  503: "SlowDown",
};

/** A readers–writer lock: many readers together, or one writer alone. Writers are not starved. */
class ReadWriteLock {
  private readers = 0;
  private writer = false;
  private readonly queue: { write: boolean; grant: () => void }[] = [];

  acquire(write: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      this.queue.push({ write, grant: () => resolve(() => this.release(write)) });
      this.pump();
    });
  }

  private release(write: boolean): void {
    if (write) this.writer = false;
    else this.readers--;
    this.pump();
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (this.writer || (next.write && this.readers > 0)) return;
      this.queue.shift();
      if (next.write) this.writer = true;
      else this.readers++;
      next.grant();
      if (next.write) return;
    }
  }
}

interface ParsedRequest {
  op: S3Operation;
  bucket: string | undefined;
  key: string | undefined;
  conditional: boolean;
  /** Set when the answer to this request is to be dropped: it is recorded once, by `handle`. */
  lost?: boolean;
}

const CONDITION_HEADERS = [
  "if-match",
  "if-none-match",
  "x-amz-copy-source-if-match",
  "x-amz-copy-source-if-none-match",
];

/** mulberry32: a small seeded generator, enough for repeatable fault sequences. */
const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const parseRequest = (req: IncomingMessage): ParsedRequest => {
  const url = new URL(req.url ?? "/", "http://proxy");
  const [, rawBucket = "", ...rawKey] = url.pathname.split("/");
  const bucket = rawBucket === "" ? undefined : decodeURIComponent(rawBucket);
  const key =
    rawKey.length === 0 || rawKey.join("/") === "" ? undefined : decodeURIComponent(rawKey.join("/"));
  const method = req.method ?? "GET";
  const q = url.searchParams;
  let op: S3Operation = "Other";
  if (key !== undefined && !q.has("uploads") && !q.has("uploadId") && !q.has("tagging") && !q.has("acl")) {
    if (method === "GET") op = "GetObject";
    else if (method === "HEAD") op = "HeadObject";
    else if (method === "PUT") op = req.headers["x-amz-copy-source"] ? "CopyObject" : "PutObject";
    else if (method === "DELETE") op = "DeleteObject";
  } else if (key === undefined && bucket !== undefined) {
    if (method === "POST" && q.has("delete")) op = "DeleteObjects";
    else if (method === "GET" && q.get("list-type") === "2") op = "ListObjectsV2";
    else if (
      method === "GET" &&
      [...q.keys()].every((k) => ["prefix", "delimiter", "marker", "max-keys", "encoding-type"].includes(k))
    )
      op = "ListObjects";
  }
  const conditional = CONDITION_HEADERS.some((h) => req.headers[h] !== undefined);
  return { op, bucket, key, conditional };
};

const errorXml = (code: string, message: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomUUID()}</RequestId></Error>`;

const sendError = (res: ServerResponse, status: number, code: string, message: string): void => {
  const body = errorXml(code, message);
  res.writeHead(status, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
  res.end(body);
};

/**
 * s3rver reads `x-amz-copy-source` with `decodeURI`, which leaves `%2F`, `%2B`, `%26`... encoded, so keys
 * with those characters would not be found. Re-encoding with `encodeURI` keeps such characters literal,
 * which is what s3rver expects; real S3 accepts the fully encoded form the client sent.
 */
const normaliseCopySource = (value: string): string => {
  try {
    return encodeURI(decodeURIComponent(value));
  } catch {
    return value;
  }
};

const matches = (rule: S3RequestMatch, parsed: ParsedRequest, method: string): boolean => {
  if (rule.op !== undefined && rule.op !== parsed.op) return false;
  if (rule.method !== undefined && rule.method.toUpperCase() !== method) return false;
  if (rule.conditional !== undefined && rule.conditional !== parsed.conditional) return false;
  if (rule.key !== undefined) {
    if (parsed.key === undefined) return false;
    if (typeof rule.key === "string" ? rule.key !== parsed.key : !rule.key(parsed.key)) return false;
  }
  return true;
};

/**
 * Starts s3rver and the enforcing proxy on free loopback ports.
 *
 * @example
 * ```ts
 * const s3 = await startS3();
 * const client = new S3Client({ endpoint: s3.endpoint, region: s3.region, credentials: s3.credentials, forcePathStyle: true });
 * s3.failNext({ op: "PutObject", status: 503 });
 * await s3.stop();
 * ```
 */
export async function startS3(options: StartS3Options = {}): Promise<S3TestServer> {
  const bucket = options.bucket ?? "test-bucket";
  const directory = mkdtempSync(join(tmpdir(), "mem-s3rver-"));
  const releaseDirectory = trackDirectory(directory);
  const removeOwnDirectory = () => {
    removeDirectory(directory);
    releaseDirectory();
  };
  const s3rver = new S3rver({
    address: HOST,
    port: 0,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: bucket }],
  });
  storeLongNames(s3rver.store);
  const storeIdle = completeWrites(s3rver.store as unknown as S3rverWritingStore);
  let upstreamPort: number;
  try {
    upstreamPort = (await s3rver.run()).port;
  } catch (error) {
    removeOwnDirectory();
    throw new Error(`s3rver failed to start: ${(error as Error).message}`);
  }

  const agent = new Agent({ keepAlive: true });
  const lock = new ReadWriteLock();
  let records: S3RequestRecord[] = [];
  const rules: { rule: S3FailureRule; seen: number; failed: number; random: () => number }[] = [];
  const hung = new Set<ServerResponse>();

  const record = (parsed: ParsedRequest, method: string, status: number, injected: boolean) => {
    if (parsed.lost) return;
    records.push({ op: parsed.op, method, key: parsed.key, status, injected });
  };

  const injectedFailure = (parsed: ParsedRequest, method: string): S3FailureRule | undefined => {
    for (const entry of rules) {
      if (!matches(entry.rule, parsed, method)) continue;
      entry.seen++;
      if (entry.seen <= (entry.rule.skip ?? 0)) continue;
      if (entry.failed >= (entry.rule.count ?? 1)) continue;
      if (entry.rule.rate !== undefined && entry.random() >= entry.rule.rate) continue;
      entry.failed++;
      return entry.rule;
    }
    return undefined;
  };

  /** The precondition a write carries, checked against the stored object; a status to refuse with, or 0. */
  const preconditionStatus = async (req: IncomingMessage, parsed: ParsedRequest): Promise<number> => {
    if (parsed.key === undefined || parsed.bucket === undefined) return 0;
    const ifNoneMatch = req.headers["if-none-match"];
    const ifMatch =
      parsed.op === "CopyObject" ? req.headers["x-amz-copy-source-if-match"] : req.headers["if-match"];
    if (parsed.op !== "PutObject" && parsed.op !== "CopyObject") return 0;
    if (ifNoneMatch === undefined && ifMatch === undefined) return 0;
    let currentEtag: string | undefined;
    if (parsed.op === "CopyObject" && ifMatch !== undefined) {
      const source = decodeURIComponent(String(req.headers["x-amz-copy-source"])).replace(/^\//, "");
      const cut = source.indexOf("/");
      currentEtag = await etagOf(source.slice(0, cut), source.slice(cut + 1));
      if (currentEtag === undefined || !etagEquals(currentEtag, String(ifMatch))) return 412;
    } else if (ifMatch !== undefined) {
      currentEtag = await etagOf(parsed.bucket, parsed.key);
      if (currentEtag === undefined || !etagEquals(currentEtag, String(ifMatch))) return 412;
    }
    if (ifNoneMatch !== undefined) {
      if (String(ifNoneMatch).trim() !== "*") return 501;
      if ((await etagOf(parsed.bucket, parsed.key)) !== undefined) return 412;
    }
    return 0;
  };

  const etagOf = async (b: string, key: string): Promise<string | undefined> => {
    if (!(await s3rver.store.existsObject(b, key))) return undefined;
    return (await s3rver.store.getMetadata(b, key)).etag;
  };

  /** True once the stored object's bytes hash to the ETag the store reports (and to `expected`, if given). */
  const isWhole = async (b: string, key: string, expected: string | undefined): Promise<boolean> => {
    try {
      const { etag } = await s3rver.store.getMetadata(b, key);
      const bytes = await readFile(s3rver.store.getResourcePath(b, key, "object"));
      const md5 = createHash("md5").update(bytes).digest("hex");
      return etagEquals(etag, md5) && (expected === undefined || etagEquals(expected, md5));
    } catch {
      return false;
    }
  };

  /** Waits, within a bound, until a written object reads back whole; false if it never does. */
  const settles = async (parsed: ParsedRequest, expected: string | undefined): Promise<boolean> => {
    if (parsed.bucket === undefined || parsed.key === undefined) return true;
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    for (;;) {
      if (await isWhole(parsed.bucket, parsed.key, expected)) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  /**
   * Relays the request to s3rver. Reads stream back as they come; the answer to a PutObject or CopyObject
   * is held until the object it wrote reads back whole, and becomes a 500 if it never does.
   */
  const forward = (req: IncomingMessage, res: ServerResponse, parsed: ParsedRequest, method: string) =>
    new Promise<void>((resolve) => {
      // The client may have given up while the request waited for the lock.
      if (req.socket.destroyed) {
        record(parsed, method, 0, false);
        resolve();
        return;
      }
      const headers = { ...req.headers };
      const copySource = headers["x-amz-copy-source"];
      if (typeof copySource === "string") headers["x-amz-copy-source"] = normaliseCopySource(copySource);
      const verify = parsed.op === "PutObject" || parsed.op === "CopyObject";
      const upstream = httpRequest(
        { host: HOST, port: upstreamPort, method, path: req.url, headers, agent },
        (upRes) => {
          const status = upRes.statusCode ?? 502;
          upRes.on("error", () => resolve());
          if (!verify || status < 200 || status > 299) {
            res.writeHead(status, upRes.headers);
            upRes.pipe(res);
            upRes.on("end", () => {
              record(parsed, method, status, false);
              resolve();
            });
            return;
          }
          const chunks: Buffer[] = [];
          upRes.on("data", (chunk: Buffer) => chunks.push(chunk));
          upRes.on("end", () => {
            const etag = parsed.op === "PutObject" ? upRes.headers.etag : undefined;
            void settles(parsed, etag).then((whole) => {
              if (res.destroyed) {
                record(parsed, method, 0, false);
              } else if (whole) {
                res.writeHead(status, upRes.headers);
                res.end(Buffer.concat(chunks));
                record(parsed, method, status, false);
              } else {
                sendError(res, 500, "InternalError", "The stored object does not match its ETag");
                record(parsed, method, 500, false);
              }
              resolve();
            });
          });
        },
      );
      upstream.on("error", () => {
        if (!res.headersSent) sendError(res, 502, "BadGateway", "Upstream failed");
        else res.destroy();
        record(parsed, method, 502, false);
        resolve();
      });
      res.on("close", () => {
        // A client that gives up mid-request must not leave s3rver waiting for the rest of the body.
        if (!res.writableFinished) upstream.destroy();
        resolve();
      });
      req.pipe(upstream);
    });

  const listV2 = async (req: IncomingMessage, res: ServerResponse, parsed: ParsedRequest) => {
    const q = new URL(req.url ?? "/", "http://proxy").searchParams;
    const name = parsed.bucket ?? "";
    if (!(await s3rver.store.getBucket(name))) {
      sendError(res, 404, "NoSuchBucket", "The specified bucket does not exist");
      return 404;
    }
    const prefix = q.get("prefix") ?? "";
    const delimiter = q.get("delimiter") ?? "";
    const requested = Number(q.get("max-keys") ?? "1000");
    const maxKeys = Number.isInteger(requested) && requested >= 0 ? Math.min(requested, 1000) : 1000;
    const token = q.get("continuation-token");
    const after =
      token !== null ? Buffer.from(token, "base64url").toString("utf8") : (q.get("start-after") ?? "");
    const { objects } = await s3rver.store.listObjects(name, { prefix, maxKeys: Number.POSITIVE_INFINITY });
    const entries: ({ prefix: string } | (typeof objects)[number])[] = [];
    const seenPrefixes = new Set<string>();
    for (const object of objects.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)))) {
      const cut = delimiter === "" ? -1 : object.key.indexOf(delimiter, prefix.length);
      if (cut === -1) {
        entries.push(object);
        continue;
      }
      const common = object.key.slice(0, cut + delimiter.length);
      if (!seenPrefixes.has(common)) {
        seenPrefixes.add(common);
        entries.push({ prefix: common });
      }
    }
    const nameOf = (e: (typeof entries)[number]) => ("prefix" in e ? e.prefix : e.key);
    const remaining = entries.filter((e) => Buffer.compare(Buffer.from(nameOf(e)), Buffer.from(after)) > 0);
    const page = remaining.slice(0, maxKeys);
    const truncated = remaining.length > page.length;
    const urlEncode = q.get("encoding-type") === "url";
    const show = (value: string) =>
      xmlEscape(urlEncode ? encodeURIComponent(value).replace(/%2F/g, "/") : value);
    const parts = [
      `<Name>${xmlEscape(name)}</Name><Prefix>${show(prefix)}</Prefix>`,
      delimiter === "" ? "" : `<Delimiter>${show(delimiter)}</Delimiter>`,
      urlEncode ? "<EncodingType>url</EncodingType>" : "",
      `<KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>`,
      token !== null ? `<ContinuationToken>${xmlEscape(token)}</ContinuationToken>` : "",
      token === null && q.has("start-after") ? `<StartAfter>${show(after)}</StartAfter>` : "",
      truncated
        ? `<NextContinuationToken>${Buffer.from(nameOf(page[page.length - 1]!)).toString("base64url")}</NextContinuationToken>`
        : "",
      ...page.map((e) =>
        "prefix" in e
          ? `<CommonPrefixes><Prefix>${show(e.prefix)}</Prefix></CommonPrefixes>`
          : `<Contents><Key>${show(e.key)}</Key><LastModified>${e.lastModifiedDate.toISOString()}</LastModified>` +
            `<ETag>${xmlEscape(e.metadata.etag)}</ETag><Size>${e.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
      ),
    ];
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts.join("")}</ListBucketResult>`;
    req.resume();
    res.writeHead(200, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
    res.end(body);
    return 200;
  };

  const deleteBatch = async (req: IncomingMessage, res: ServerResponse, parsed: ParsedRequest) => {
    const name = parsed.bucket ?? "";
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const xml = Buffer.concat(chunks).toString("utf8");
    if (!(await s3rver.store.getBucket(name))) {
      sendError(res, 404, "NoSuchBucket", "The specified bucket does not exist");
      return 404;
    }
    const objects = [...xml.matchAll(/<Object>([\s\S]*?)<\/Object>/g)].map(
      (m) => /<Key>([\s\S]*?)<\/Key>/.exec(m[1]!)?.[1],
    );
    if (objects.length === 0 || objects.length > 1000 || objects.some((k) => k === undefined)) {
      sendError(res, 400, "MalformedXML", "The XML you provided was not well-formed");
      return 400;
    }
    const quiet = /<Quiet>\s*true\s*<\/Quiet>/i.test(xml);
    const keys = objects.map((k) => xmlUnescape(k!));
    for (const key of keys) {
      if (await s3rver.store.existsObject(name, key)) await s3rver.store.deleteObject(name, key);
    }
    const deleted = quiet ? "" : keys.map((k) => `<Deleted><Key>${xmlEscape(k)}</Key></Deleted>`).join("");
    const body =
      '<?xml version="1.0" encoding="UTF-8"?>\n' +
      `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${deleted}</DeleteResult>`;
    res.writeHead(200, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
    res.end(body);
    return 200;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? "GET").toUpperCase();
    const parsed = parseRequest(req);
    const failure = injectedFailure(parsed, method);
    if (failure?.drop === "response" && !failure.hang) {
      // Handled as usual, but whatever the server answers is replaced by a dropped connection.
      parsed.lost = true;
      res.writeHead = (() => res.destroy()) as unknown as ServerResponse["writeHead"];
    } else if (failure) {
      req.resume();
      if (failure.hang) {
        hung.add(res);
        res.on("close", () => hung.delete(res));
        record(parsed, method, 0, true);
        return;
      }
      if (failure.drop === "request") {
        res.destroy();
        record(parsed, method, 0, true);
        return;
      }
      const status = failure.status ?? 503;
      sendError(res, status, failure.code ?? ERROR_CODES[status] ?? "InternalError", "Injected failure");
      record(parsed, method, status, true);
      return;
    }
    const write = method !== "GET" && method !== "HEAD";
    const release = await lock.acquire(write);
    try {
      if (parsed.op === "ListObjectsV2") {
        record(parsed, method, await listV2(req, res, parsed), false);
        return;
      }
      if (parsed.op === "DeleteObjects") {
        record(parsed, method, await deleteBatch(req, res, parsed), false);
        return;
      }
      const refuse = options.enforceConditions === false ? 0 : await preconditionStatus(req, parsed);
      if (refuse !== 0) {
        req.resume();
        if (refuse === 412)
          sendError(
            res,
            412,
            "PreconditionFailed",
            "At least one of the pre-conditions you specified did not hold",
          );
        else sendError(res, 501, "NotImplemented", "Only If-None-Match: * is supported on writes");
        record(parsed, method, refuse, false);
        return;
      }
      await forward(req, res, parsed, method);
    } catch {
      if (!res.headersSent) sendError(res, 500, "InternalError", "Proxy failure");
      record(parsed, method, 500, false);
    } finally {
      // s3rver may still be writing when it has answered, or when the client gave up mid-upload.
      if (write) await storeIdle(STORE_IDLE_TIMEOUT_MS);
      release();
      if (parsed.lost) {
        res.destroy();
        records.push({ op: parsed.op, method, key: parsed.key, status: 0, injected: true });
      }
    }
  };

  const proxy: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 400, "InvalidURI", "Could not parse the request");
      else res.destroy();
    });
  });
  try {
    await new Promise<void>((resolve, reject) => {
      proxy.once("error", reject);
      proxy.listen(0, HOST, () => resolve());
    });
  } catch (error) {
    await s3rver.close().catch(() => undefined);
    removeOwnDirectory();
    throw error;
  }
  const address = proxy.address();
  const proxyPort = typeof address === "object" && address ? address.port : 0;

  const releaseHung = () => {
    for (const res of hung) res.destroy();
    hung.clear();
  };

  let stopped = false;
  return {
    endpoint: `http://${HOST}:${proxyPort}`,
    directEndpoint: `http://${HOST}:${upstreamPort}`,
    bucket,
    region: "us-east-1",
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    requests: {
      get records() {
        return records;
      },
      counts() {
        const out: Partial<Record<S3Operation, number>> = {};
        for (const r of records) out[r.op] = (out[r.op] ?? 0) + 1;
        return out;
      },
      total: () => records.length,
      reset() {
        records = [];
      },
    },
    failNext(rule) {
      const entry = { rule, seen: 0, failed: 0, random: seededRandom(rule.seed ?? 1) };
      rules.push(entry);
      return () => {
        const at = rules.indexOf(entry);
        if (at >= 0) rules.splice(at, 1);
      };
    },
    clearFailures() {
      rules.length = 0;
      releaseHung();
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      releaseHung();
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      agent.destroy();
      await s3rver.close().catch(() => undefined);
      removeOwnDirectory();
    },
  };
}

/** Longest last key segment stored under its own name; longer ones are hashed (file names max 255 bytes). */
const LONGEST_FILE_NAME = 200;
const HASHED = "~long~";

/**
 * Makes s3rver's file-system store accept long object names: a last segment longer than
 * `LONGEST_FILE_NAME` bytes is stored as `~long~{sha256}`, and listings map it back to the key.
 */
function storeLongNames(store: S3rverObjectStore): void {
  const names = new Map<string, string>();
  const resourcePath = store.getResourcePath.bind(store);
  const onDisk = (key: string): string => {
    const cut = key.lastIndexOf("/") + 1;
    const last = key.slice(cut);
    if (Buffer.byteLength(last) <= LONGEST_FILE_NAME) return key;
    const hashed = HASHED + createHash("sha256").update(last).digest("hex");
    names.set(hashed, last);
    return key.slice(0, cut) + hashed;
  };
  const fromDisk = (key: string): string => {
    const cut = key.lastIndexOf("/") + 1;
    return key.slice(0, cut) + (names.get(key.slice(cut)) ?? key.slice(cut));
  };
  store.getResourcePath = (bucket, key, resource) =>
    resourcePath(bucket, key === undefined ? key : onDisk(key), resource);
  const listObjects = store.listObjects.bind(store);
  store.listObjects = async (bucket, options) => {
    // Hashed names do not start with the prefix's last segment, so list the whole directory and filter.
    const directory = options.prefix.slice(0, options.prefix.lastIndexOf("/") + 1);
    const listed = await listObjects(bucket, { ...options, prefix: directory });
    const objects = listed.objects
      .map((object) => Object.assign(object, { key: fromDisk(object.key) }))
      .filter((object) => object.key.startsWith(options.prefix));
    return { ...listed, objects };
  };
}

const xmlEscape = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!,
  );

const xmlUnescape = (value: string): string =>
  value.replace(
    /&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g,
    (whole, name: string, dec?: string, hex?: string) => {
      if (dec !== undefined) return String.fromCodePoint(Number(dec));
      if (hex !== undefined) return String.fromCodePoint(Number.parseInt(hex, 16));
      return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[name] ?? whole;
    },
  );

/** ETags compare without their quotes, as S3 does. */
const etagEquals = (a: string, b: string): boolean => {
  const strip = (s: string) => s.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
  return b.split(",").some((candidate) => candidate.trim() === "*" || strip(candidate) === strip(a));
};
