/**
 * The requests a store sends to its database thread and the replies it gets back: plain data, so they
 * cross a `postMessage` unchanged. The clock stays with the store (tests inject one), so each request
 * carries its own `now` and expiry cutoff.
 */
import type {
  FileData,
  FileOrListing,
  Listing,
  PurgeResult,
  SearchFile,
  Stat,
  StoredFile,
  SweepResult,
  TenantPage,
  Usage,
} from "@mem/core";

interface Base {
  /** The scope chain's key (see schema.ts). */
  tenant: string;
  /** The store's clock, in milliseconds. */
  now: number;
  /** Files last accessed before this instant have expired; `null` without expiry. */
  cutoff: number | null;
}

export type Request = Base &
  (
    | { op: "read"; path: string }
    | { op: "readIf"; path: string; known: string | null }
    | { op: "stat"; path: string }
    | { op: "list"; path: string; depth: number; limit: number | null; countFiles: boolean }
    | { op: "readOrList"; path: string; depth: number; limit: number | null; countFiles: boolean }
    | { op: "write"; path: string; data: Uint8Array; ifVersion: string | null }
    | { op: "delete"; path: string }
    | { op: "rename"; path: string; to: string }
    | { op: "usage" }
    | { op: "files" }
    | { op: "search"; path: string; needle: string }
    | { op: "sweep" }
    | { op: "check" }
    | { op: "tenants"; after: string | null; limit: number }
    | { op: "fence" }
    | { op: "purge"; dryRun: boolean }
  );

export interface Results {
  read: FileData | null;
  /** A file's version, and its bytes unless they are at version `known`; `null` when missing. */
  readIf: { version: string; data: Uint8Array | null } | null;
  stat: Stat | null;
  list: Listing | null;
  readOrList: FileOrListing | null;
  write: { version: string };
  delete: boolean;
  rename: undefined;
  usage: Usage;
  files: StoredFile[];
  search: SearchFile[] | null;
  sweep: SweepResult;
  check: undefined;
  tenants: TenantPage;
  fence: undefined;
  purge: PurgeResult;
}

/** A failure as data: the store turns it back into core's typed error. */
export type Failure =
  | { type: "exists"; path: string }
  | { type: "notdir"; path: string; ancestor: string }
  | { type: "conflict"; path: string }
  | { type: "notfound"; path: string }
  | { type: "inside"; path: string; to: string }
  | { type: "erasing"; path: string }
  | { type: "failure"; reason: string; mayBeApplied: boolean };

export type Reply = { ok: true; value: unknown } | { ok: false; failure: Failure };

/** Requests that change the database (with expiry, every request may: reads refresh access times). */
export const changes = (request: Request): boolean =>
  request.cutoff !== null ||
  request.op === "write" ||
  request.op === "delete" ||
  request.op === "rename" ||
  request.op === "sweep" ||
  request.op === "fence" ||
  request.op === "purge";

/** Messages to the database thread. */
export type ToThread = { type: "batch"; id: number; requests: Request[] } | { type: "close" };

/** Messages from the database thread. */
export type FromThread = { type: "replies"; id: number; replies: Reply[] } | { type: "closed" };
