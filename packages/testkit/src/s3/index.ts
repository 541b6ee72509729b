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

import { mkdtempSync } from "node:fs";
import { Agent, createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { removeDirectory, trackDirectory } from "../cleanup.js";
import { preconditionStatus } from "./conditions.js";
import { deleteObjects } from "./delete-objects.js";
import { FaultRules } from "./faults.js";
import { forward, type Recorder, type Upstream } from "./forward.js";
import { listObjectsV2 } from "./list-objects.js";
import { ReadWriteLock } from "./read-write-lock.js";
import { parseRequest } from "./requests.js";
import { S3rver, storeLongNames } from "./s3rver.js";
import { completeWrites, type S3rverWritingStore } from "./s3rver-writes.js";
import type { S3Operation, S3RequestRecord, S3TestServer, StartS3Options } from "./types.js";
import { ERROR_CODES, sendError } from "./xml.js";

export type {
  S3Credentials,
  S3FailureRule,
  S3Operation,
  S3RequestLog,
  S3RequestMatch,
  S3RequestRecord,
  S3TestServer,
  StartS3Options,
} from "./types.js";

const HOST = "127.0.0.1";
/** How long a write may keep the lock waiting for s3rver's store to finish; it normally takes a few ms. */
const STORE_IDLE_TIMEOUT_MS = 10_000;

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
  const upstream: Upstream = { host: HOST, port: upstreamPort, agent, store: s3rver.store };
  const lock = new ReadWriteLock();
  let records: S3RequestRecord[] = [];
  const faults = new FaultRules();
  const hung = new Set<ServerResponse>();

  const record: Recorder = (parsed, method, status, injected) => {
    if (parsed.lost) return;
    records.push({ op: parsed.op, method, key: parsed.key, status, injected });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = (req.method ?? "GET").toUpperCase();
    const parsed = parseRequest(req);
    const failure = faults.take(parsed, method);
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
        record(parsed, method, await listObjectsV2(s3rver.store, req, res, parsed), false);
        return;
      }
      if (parsed.op === "DeleteObjects") {
        record(parsed, method, await deleteObjects(s3rver.store, req, res, parsed), false);
        return;
      }
      const refuse =
        options.enforceConditions === false ? 0 : await preconditionStatus(s3rver.store, req, parsed);
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
      await forward(upstream, req, res, parsed, method, record);
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
    failNext: (rule) => faults.add(rule),
    clearFailures() {
      faults.clear();
      releaseHung();
    },
    async seed(objects) {
      const writer = s3rver.store as unknown as S3rverWritingStore;
      let next = 0;
      const worker = async () => {
        while (next < objects.length) {
          const { key, body } = objects[next++]!;
          await writer.putObject({
            bucket,
            key,
            content: Buffer.from(body),
            metadata: { "content-type": "binary/octet-stream" },
          });
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
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
