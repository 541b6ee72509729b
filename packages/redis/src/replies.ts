/** The replies of the store's Lua code (see lua/store.lua), read by position. */
import type { ListEntry, Listing, ListOptions } from "@mem/core";

export type Reply = Buffer | number | null | Reply[];

export type Operation =
  | "read"
  | "readIf"
  | "stat"
  | "list"
  | "view"
  | "write"
  | "delete"
  | "rename"
  | "usage"
  | "sweep";

/** Operations that change data: only their failures can leave the outcome unknown. */
export const CHANGES: ReadonlySet<Operation> = new Set(["write", "delete", "rename", "sweep"]);

export const text = (value: Reply | undefined): string =>
  Buffer.isBuffer(value) ? value.toString("utf8") : "";

/** The script's arguments for `options`: the limit ('' for none) and whether to count files. */
export const listArguments = (options: ListOptions | undefined): string[] => [
  options?.limit === undefined ? "" : String(Math.max(0, Math.floor(options.limit))),
  options?.countFiles ? "1" : "",
];

/**
 * The script's listing reply: size, entries left out, file count, then path, kind, size, level and file
 * count of each entry.
 */
export const listingOf = (reply: Reply[]): Listing => {
  const entries: ListEntry[] = [];
  for (let i = 3; i + 4 < reply.length; i += 5) {
    const kind = text(reply[i + 1]) === "f" ? "file" : "directory";
    const entry: ListEntry = {
      path: text(reply[i]),
      kind,
      size: Number(reply[i + 2]),
      depth: Number(reply[i + 3]),
    };
    const files = Number(reply[i + 4]);
    if (kind === "directory" && files >= 0) entry.files = files;
    entries.push(entry);
  }
  const listing: Listing = { size: Number(reply[0]), entries };
  const files = Number(reply[2]);
  if (files >= 0) listing.files = files;
  const omitted = Number(reply[1]);
  if (omitted > 0) listing.omitted = omitted;
  return listing;
};
