/**
 * Typed errors a {@link MemoryStore} throws. Core maps each to the exact result of SPEC.md; adapters
 * never build result strings themselves.
 */
import type { Usage } from "./store.js";
export abstract class MemoryStoreError extends Error {
  abstract readonly code: string;
}

/** Nothing at the path (or, for edits, the path is not a file). */
export class NotFoundError extends MemoryStoreError {
  readonly code = "NOT_FOUND";
  constructor(readonly path: string) {
    super(`nothing at ${path}`);
    this.name = "NotFoundError";
  }
}

/** A file or directory already occupies the path (create with `ifAbsent`, rename destination). */
export class AlreadyExistsError extends MemoryStoreError {
  readonly code = "ALREADY_EXISTS";
  constructor(readonly path: string) {
    super(`${path} already exists`);
    this.name = "AlreadyExistsError";
  }
}

/** `ancestor` of the target is a file, so the target cannot be created beneath it. */
export class NotADirectoryError extends MemoryStoreError {
  readonly code = "NOT_A_DIRECTORY";
  constructor(
    readonly path: string,
    readonly ancestor: string,
  ) {
    super(`${ancestor} is a file, not a directory`);
    this.name = "NotADirectoryError";
  }
}

/** A conditional write lost a race: the file changed (or vanished) since it was read. Core retries. */
export class ConflictError extends MemoryStoreError {
  readonly code = "CONFLICT";
  constructor(readonly path: string) {
    super(`${path} changed concurrently`);
    this.name = "ConflictError";
  }
}

/**
 * The write's tenant is being erased (`purge()`), so the write was refused and nothing was changed
 * (SPEC §7). Thrown by a store, or a wrapper, that fences a tenant while it purges it.
 */
export class ErasingError extends MemoryStoreError {
  readonly code = "ERASING";
  constructor(readonly path: string) {
    super(`${path} is being erased`);
    this.name = "ErasingError";
  }
}

/**
 * `writeWithinQuota` refused a write that would break its quota. `usage` is what the store (or scope)
 * held just before the write, measured in the same atomic step; core words the refusal from it.
 */
export class QuotaExceededError extends MemoryStoreError {
  readonly code = "QUOTA_EXCEEDED";
  constructor(
    readonly path: string,
    readonly usage: Usage,
  ) {
    super(`writing ${path} would exceed the quota`);
    this.name = "QuotaExceededError";
  }
}

/**
 * The storage itself failed: network down, permission denied, tampered ciphertext, timeout.
 * `reason` reaches the model verbatim, so it must never hold credentials, keys or signed URLs.
 * `mayBeApplied` says the request may have reached storage (a timeout or a lost connection after it
 * left): core then tells the model the change may still be applied (SPEC §5).
 */
export class StoreFailureError extends MemoryStoreError {
  readonly code = "STORE_FAILURE";
  readonly mayBeApplied: boolean;
  constructor(
    readonly reason: string,
    options?: { cause?: unknown; mayBeApplied?: boolean },
  ) {
    super(reason, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StoreFailureError";
    this.mayBeApplied = options?.mayBeApplied === true;
  }
}
