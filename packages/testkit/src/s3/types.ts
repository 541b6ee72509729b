/** The public shapes of the S3 test server: its options, request log and injected faults. */
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
  /**
   * Stores objects through s3rver's own object store, in this process: no HTTP, no signing, no proxy
   * (nothing counted), so thousands of objects take seconds. What is stored is what a PutObject of the
   * same body stores (content type `binary/octet-stream`, its MD5 as ETag).
   */
  seed(objects: readonly { key: string; body: string | Uint8Array }[]): Promise<void>;
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

export interface ParsedRequest {
  op: S3Operation;
  bucket: string | undefined;
  key: string | undefined;
  conditional: boolean;
  /** Set when the answer to this request is to be dropped: it is recorded once, by `handle`. */
  lost?: boolean;
}
