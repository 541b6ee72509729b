/**
 * Makes s3rver's file-system store write objects completely before it answers.
 *
 * s3rver 3.7.1 pipes a PutObject body into the object's file in place and resolves when the body has
 * been hashed, not when the file has been written: it answers while the last writes (sometimes even the
 * truncating open) are still queued, so a GetObject right after can pair the new ETag with a short or
 * empty body. A body cut off by a client that gives up is worse: the file stays truncated under the old
 * ETag for good, and an edit based on it passes its If-Match check. The replacement below writes the
 * body to a temporary file beside the object, waits until it is closed, and only then renames it over
 * the object and writes the checksum, so the object is never partial and an abandoned upload changes
 * nothing. It also tracks every store write, so the proxy can wait for the store to be idle.
 */
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";

interface StoredObject {
  bucket: string;
  key: string;
  content: Readable | Buffer;
  metadata: Record<string, unknown>;
}

/** The part of s3rver's `FilesystemStore` that writes objects. */
export interface S3rverWritingStore {
  getResourcePath(bucket: string, key?: string, resource?: string): string;
  putMetadata(bucket: string, key: string, metadata: Record<string, unknown>, md5?: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
  putPart(
    bucket: string,
    uploadId: string,
    partNumber: number,
    content: Readable,
  ): Promise<{ size: number; md5: string }>;
  copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    replacementMetadata: unknown,
  ): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<void>;
  putObjectMultipart(bucket: string, uploadId: string, parts: unknown): Promise<unknown>;
}

/** Resolves once no store write is in progress (or after `timeoutMs`, whichever comes first). */
export type StoreIdle = (timeoutMs: number) => Promise<void>;

/** Writes `content` to `file` and resolves with its size and MD5 once the file is closed. */
const writeWhole = (content: Readable | Buffer, file: string): Promise<{ size: number; md5: string }> =>
  new Promise((resolve, reject) => {
    const hash = createHash("md5");
    let size = 0;
    let failed = false;
    const out = createWriteStream(file);
    const fail = (error: Error) => {
      if (failed) return;
      failed = true;
      out.destroy();
      reject(error);
    };
    out.once("error", fail);
    out.once("close", () => {
      if (!failed) resolve({ size, md5: hash.digest("hex") });
    });
    if (Buffer.isBuffer(content)) {
      hash.update(content);
      size = content.length;
      out.end(content);
      return;
    }
    content.on("data", (chunk: Buffer) => {
      hash.update(chunk);
      size += chunk.length;
      if (!out.write(chunk)) content.pause();
    });
    out.on("drain", () => content.resume());
    content.once("end", () => out.end());
    content.once("error", fail);
    content.once("aborted", () => fail(new Error("the upload was abandoned")));
    content.once("close", () => {
      if (!content.readableEnded) fail(new Error("the upload was abandoned"));
    });
    // s3rver reaches the store only after its middleware ran: the client may have hung up already.
    if (content.destroyed && !content.readableEnded) fail(new Error("the upload was abandoned"));
  });

/** Writes `content` beside `target` and renames it over `target` once it is complete. */
const replaceWhole = async (
  content: Readable | Buffer,
  target: string,
): Promise<{ size: number; md5: string }> => {
  await mkdir(dirname(target), { recursive: true });
  // Never ends in `._S3rver_object`, so listings do not see it while it is being written.
  const partial = `${target}.${randomBytes(4).toString("hex")}.partial`;
  try {
    const written = await writeWhole(content, partial);
    await rename(partial, target);
    return written;
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
};

/**
 * Replaces the store's object and part writes with complete ones (see the module comment), makes a
 * copy that replaces metadata report the copied bytes' ETag, and returns a wait for store writes.
 *
 * @example
 * ```ts
 * const idle = completeWrites(s3rver.store);
 * await idle(10_000);
 * ```
 */
export function completeWrites(store: S3rverWritingStore): StoreIdle {
  store.putObject = async (object) => {
    const written = await replaceWhole(
      object.content,
      store.getResourcePath(object.bucket, object.key, "object"),
    );
    await store.putMetadata(object.bucket, object.key, object.metadata, written.md5);
    return written;
  };
  store.putPart = async (bucket, uploadId, partNumber, content) => {
    const partPath = join(store.getResourcePath(bucket, undefined, "uploads"), uploadId, String(partNumber));
    const written = await replaceWhole(content, partPath);
    await writeFile(`${partPath}.md5`, written.md5);
    return written;
  };
  const copyObject = store.copyObject.bind(store);
  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacementMetadata) => {
    const destination = store.getResourcePath(destBucket, destKey, "object");
    // With new metadata s3rver keeps the destination's old checksum file and reports the old ETag;
    // without one it computes the checksum from the copied bytes.
    if (replacementMetadata && store.getResourcePath(srcBucket, srcKey, "object") !== destination)
      await rm(`${destination}.md5`, { force: true });
    return copyObject(srcBucket, srcKey, destBucket, destKey, replacementMetadata);
  };

  const pending = new Set<Promise<unknown>>();
  const track = <A extends unknown[], R>(write: (...args: A) => Promise<R>) =>
    function tracked(...args: A): Promise<R> {
      const running = write(...args);
      pending.add(running);
      const forget = () => pending.delete(running);
      running.then(forget, forget);
      return running;
    };
  store.putObject = track(store.putObject);
  store.putPart = track(store.putPart);
  store.copyObject = track(store.copyObject);
  store.deleteObject = track(store.deleteObject.bind(store));
  store.putObjectMultipart = track(store.putObjectMultipart.bind(store));

  return async (timeoutMs) => {
    const deadline = Date.now() + timeoutMs;
    while (pending.size > 0 && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, deadline - Date.now());
      });
      await Promise.race([Promise.allSettled([...pending]), timeout]);
      clearTimeout(timer);
    }
    // A write that never ends is not waited for again: every later write would pay the whole bound.
    pending.clear();
  };
}
