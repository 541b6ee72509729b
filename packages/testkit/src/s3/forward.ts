/** Relaying a request to s3rver, holding a write's answer until the object it wrote reads back whole. */
import { type Agent, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { settles } from "./conditions.js";
import { normaliseCopySource } from "./requests.js";
import type { S3rverObjectStore } from "./s3rver.js";
import type { ParsedRequest } from "./types.js";
import { sendError } from "./xml.js";

/** s3rver as the proxy reaches it: over HTTP, and its object store directly. */
export interface Upstream {
  host: string;
  port: number;
  agent: Agent;
  store: S3rverObjectStore;
}

/** Records the status a client received for `parsed` (0 for none). */
export type Recorder = (parsed: ParsedRequest, method: string, status: number, injected: boolean) => void;

/**
 * Relays the request to s3rver. Reads stream back as they come; the answer to a PutObject or CopyObject
 * is held until the object it wrote reads back whole, and becomes a 500 if it never does.
 */
export const forward = (
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: ParsedRequest,
  method: string,
  record: Recorder,
): Promise<void> =>
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
    const request = httpRequest(
      { host: upstream.host, port: upstream.port, method, path: req.url, headers, agent: upstream.agent },
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
          void settles(upstream.store, parsed, etag).then((whole) => {
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
    request.on("error", () => {
      if (!res.headersSent) sendError(res, 502, "BadGateway", "Upstream failed");
      else res.destroy();
      record(parsed, method, 502, false);
      resolve();
    });
    res.on("close", () => {
      // A client that gives up mid-request must not leave s3rver waiting for the rest of the body.
      if (!res.writableFinished) request.destroy();
      resolve();
    });
    req.pipe(request);
  });
