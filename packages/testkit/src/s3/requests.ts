/** What the proxy reads from a request: its S3 operation, bucket, key and whether it carries a precondition. */
import type { IncomingMessage } from "node:http";
import type { ParsedRequest, S3Operation, S3RequestMatch } from "./types.js";

const CONDITION_HEADERS = [
  "if-match",
  "if-none-match",
  "x-amz-copy-source-if-match",
  "x-amz-copy-source-if-none-match",
];

export const parseRequest = (req: IncomingMessage): ParsedRequest => {
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

/**
 * s3rver reads `x-amz-copy-source` with `decodeURI`, which leaves `%2F`, `%2B`, `%26`... encoded, so keys
 * with those characters would not be found. Re-encoding with `encodeURI` keeps such characters literal,
 * which is what s3rver expects; real S3 accepts the fully encoded form the client sent.
 */
export const normaliseCopySource = (value: string): string => {
  try {
    return encodeURI(decodeURIComponent(value));
  } catch {
    return value;
  }
};

export const matches = (rule: S3RequestMatch, parsed: ParsedRequest, method: string): boolean => {
  if (rule.op !== undefined && rule.op !== parsed.op) return false;
  if (rule.method !== undefined && rule.method.toUpperCase() !== method) return false;
  if (rule.conditional !== undefined && rule.conditional !== parsed.conditional) return false;
  if (rule.key !== undefined) {
    if (parsed.key === undefined) return false;
    if (typeof rule.key === "string" ? rule.key !== parsed.key : !rule.key(parsed.key)) return false;
  }
  return true;
};
