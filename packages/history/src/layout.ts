/**
 * Where versions live: one directory per file path, named by a hash of the path (paths can be longer than
 * a name may be), holding a `path` file with the path itself and one file per version, named by its id.
 */
import { createHash, randomBytes } from "node:crypto";
import type { ChangeContext } from "@mem/core";

/** The reserved name of the history directory when history lives in the store it records. */
export const HISTORY_NAME = ".mem-history";

/**
 * The name of the file, directly below the history's base, that marks a store as a history store from
 * the moment history was turned on (`@mem/open` writes it), before any version exists: JSON `{ "since": ms }`.
 */
export const HISTORY_MARKER = "enabled";

/** The name of the file that records which path a history directory belongs to. */
export const PATH_FILE = "path";

/**
 * The name of the file, directly below the history's base, holding the running total of the bytes of
 * kept versions (a decimal number): the per-store bound is checked against it without a walk.
 */
export const TOTAL_FILE = "bytes";

/** The history directory of a path, below `base`. */
export const historyDir = (base: string, path: string): string =>
  `${base}/${createHash("sha256").update(path).digest("hex").slice(0, 40)}`;

// Base-36 milliseconds (9 digits until the year 5188), a per-process sequence, a random tail:
// ids sort by time, and two versions made in the same millisecond never collide. Then, when known, the
// command that replaced the version and its actor (base64url of UTF-8, at most 128 bytes: 171 characters),
// so that listing the versions tells who changed what without reading anything more.
const ID = /^([0-9a-z]{9})-([0-9a-z]{4})-([0-9a-f]{8})(?:\.([a-z_]{1,16}|-)(?:\.([A-Za-z0-9_-]{1,172}))?)?$/;
let sequence = 0;

/**
 * The change a version is kept for: a tool command, or `restore` and `rollback` for `HistoryStore`'s own
 * writes, and who asked.
 */
export type VersionContext = { readonly command?: string | undefined; readonly actor?: string | undefined };

/** A new version id for the time `now` (milliseconds since the epoch), naming the change that kept it. */
export const newVersionId = (now: number, context?: ChangeContext | VersionContext): string => {
  sequence = (sequence + 1) % 36 ** 4;
  const id = `${Math.floor(now).toString(36).padStart(9, "0")}-${sequence.toString(36).padStart(4, "0")}-${randomBytes(4).toString("hex")}`;
  const actor =
    context?.actor === undefined ? "" : `.${Buffer.from(context.actor, "utf8").toString("base64url")}`;
  const command = context?.command ?? (actor ? "-" : "");
  return command ? `${id}.${command}${actor}` : id;
};

/** The time of a version id, or `null` when `id` is not one (so no id can name another path). */
export const timeOfVersionId = (id: string): number | null => {
  const match = ID.exec(id);
  return match ? Number.parseInt(match[1]!, 36) : null;
};

/** The command and actor a version id records (see `newVersionId`). */
export const changeOfVersionId = (id: string): { command?: string; actor?: string } => {
  const match = ID.exec(id);
  const out: { command?: string; actor?: string } = {};
  if (match?.[4] && match[4] !== "-") out.command = match[4];
  if (match?.[5]) out.actor = Buffer.from(match[5], "base64url").toString("utf8");
  return out;
};

/**
 * The tombstone of a redacted version, beside where the version was: `redacted-{id}`, holding JSON
 * `{ "time": ms, "by"?: actor }` and nothing of the content. Never parses as a version id, so pruning and
 * the byte bound leave it alone.
 */
export const TOMBSTONE_PREFIX = "redacted-";
