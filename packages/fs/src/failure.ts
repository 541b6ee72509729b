import { isStoreError, type MemoryStoreError, StoreFailureError } from "@mem/core";

const REASONS: Record<string, string> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EIO: "input/output error",
  EROFS: "read-only file system",
  ELOOP: "symbolic link not followed",
  EMLINK: "symbolic link not followed",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  ENAMETOOLONG: "name too long",
  EBUSY: "resource busy",
  ESTALE: "stale file handle",
  ETIMEDOUT: "timed out",
  EFBIG: "file too large",
  ENOTEMPTY: "directory not empty",
  EXDEV: "cross-device move",
  ENOENT: "entry vanished during the operation",
  ENOTDIR: "entry changed type during the operation",
  EISDIR: "entry changed type during the operation",
};

/** The errno of a Node.js system error, if it is one. */
export const errnoOf = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;

/**
 * Turns anything thrown by the file system into a typed store error. The reason never carries a path
 * (the root directory is an implementation detail the model does not need to see).
 */
export const toStoreFailure = (error: unknown): MemoryStoreError => {
  if (isStoreError(error)) return error as MemoryStoreError;
  const code = errnoOf(error);
  const reason = code ? (REASONS[code] ?? `file system error (${code})`) : "unexpected file system error";
  return new StoreFailureError(reason, { cause: error });
};

/** A symbolic link or special file met where the store needed a file or directory. */
export class RefusedEntryError extends StoreFailureError {}

export const symlinkRefused = (): RefusedEntryError => new RefusedEntryError("symbolic link not followed");

export const specialFileRefused = (): RefusedEntryError =>
  new RefusedEntryError("not a regular file or directory");

/**
 * A file with more than one hard link: someone with local access may have linked a file from outside
 * the store into it, and reading it would disclose that file. The store itself never makes hard links.
 */
export const hardLinkRefused = (): RefusedEntryError => new RefusedEntryError("file has other hard links");

/** The errors a change throws before it changes anything. */
export const isRefusal = (error: unknown): boolean =>
  isStoreError(error) && !isStoreError(error, "STORE_FAILURE");
