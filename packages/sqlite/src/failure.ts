/**
 * Turns what better-sqlite3 throws into a reason that is safe to show the model: built from SQLite's
 * result codes and fixed phrases only, never from messages.
 */
import { systemReason } from "@mem/core";
import { NewerSchemaError } from "./schema.js";

const REASONS: Array<[RegExp, string]> = [
  [/^SQLITE_BUSY/, "the database is locked by another writer"],
  [/^SQLITE_LOCKED/, "the database is locked by another writer"],
  [/^SQLITE_READONLY/, "the database is read-only"],
  [/^SQLITE_FULL/, "the disk is full"],
  [/^SQLITE_CANTOPEN/, "cannot open the database file"],
  [/^SQLITE_(CORRUPT|NOTADB)/, "the database file is damaged"],
  [/^SQLITE_IOERR/, "disk I/O error"],
  [/^SQLITE_(PERM|AUTH)/, "permission denied"],
  [/^SQLITE_NOMEM/, "out of memory"],
  [/^SQLITE_TOOBIG/, "the file is too big for the database"],
  [/^SQLITE_PROTOCOL/, "the database's locking failed"],
];

/** SQLite result codes after which the whole transaction may simply be tried again. */
export const isBusy = (error: unknown): boolean => /^SQLITE_(BUSY|LOCKED)/.test(codeOf(error) ?? "");

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
};

export const reasonOf = (error: unknown): string => {
  if (error instanceof NewerSchemaError) return error.message;
  const code = codeOf(error);
  if (code?.startsWith("SQLITE_")) {
    for (const [pattern, reason] of REASONS) if (pattern.test(code)) return reason;
    return `database error ${code}`;
  }
  // better-sqlite3's own messages, matched, never shown.
  if (error instanceof TypeError && /^Cannot open database/.test(error.message)) {
    return "cannot open the database file";
  }
  if (error instanceof TypeError && /connection is not open/.test(error.message))
    return "the store is closed";
  return systemReason(code) ?? "database error";
};
