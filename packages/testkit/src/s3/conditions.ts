/**
 * What s3rver lacks and the proxy adds around writes: preconditions checked against the stored object,
 * and the check that a written object reads back whole before its writer is answered.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { IncomingMessage } from "node:http";
import { sleep } from "../process-tools.js";
import type { S3rverObjectStore } from "./s3rver.js";
import type { ParsedRequest } from "./types.js";

/** How long an answered write may take to read back whole before the client gets a 500 instead. */
const SETTLE_TIMEOUT_MS = 2_000;

const etagOf = async (store: S3rverObjectStore, b: string, key: string): Promise<string | undefined> => {
  if (!(await store.existsObject(b, key))) return undefined;
  return (await store.getMetadata(b, key)).etag;
};

/** The precondition a write carries, checked against the stored object; a status to refuse with, or 0. */
export const preconditionStatus = async (
  store: S3rverObjectStore,
  req: IncomingMessage,
  parsed: ParsedRequest,
): Promise<number> => {
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
    currentEtag = await etagOf(store, source.slice(0, cut), source.slice(cut + 1));
    if (currentEtag === undefined || !etagEquals(currentEtag, String(ifMatch))) return 412;
  } else if (ifMatch !== undefined) {
    currentEtag = await etagOf(store, parsed.bucket, parsed.key);
    if (currentEtag === undefined || !etagEquals(currentEtag, String(ifMatch))) return 412;
  }
  if (ifNoneMatch !== undefined) {
    if (String(ifNoneMatch).trim() !== "*") return 501;
    if ((await etagOf(store, parsed.bucket, parsed.key)) !== undefined) return 412;
  }
  return 0;
};

/** True once the stored object's bytes hash to the ETag the store reports (and to `expected`, if given). */
const isWhole = async (
  store: S3rverObjectStore,
  b: string,
  key: string,
  expected: string | undefined,
): Promise<boolean> => {
  try {
    const { etag } = await store.getMetadata(b, key);
    const bytes = await readFile(store.getResourcePath(b, key, "object"));
    const md5 = createHash("md5").update(bytes).digest("hex");
    return etagEquals(etag, md5) && (expected === undefined || etagEquals(expected, md5));
  } catch {
    return false;
  }
};

/** Waits, within a bound, until a written object reads back whole; false if it never does. */
export const settles = async (
  store: S3rverObjectStore,
  parsed: ParsedRequest,
  expected: string | undefined,
): Promise<boolean> => {
  if (parsed.bucket === undefined || parsed.key === undefined) return true;
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    if (await isWhole(store, parsed.bucket, parsed.key, expected)) return true;
    if (Date.now() >= deadline) return false;
    await sleep(5);
  }
};

/** ETags compare without their quotes, as S3 does. */
export const etagEquals = (a: string, b: string): boolean => {
  const strip = (s: string) => s.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
  return b.split(",").some((candidate) => candidate.trim() === "*" || strip(candidate) === strip(a));
};
