/** What both SQL stores need to read rows: path ranges, and BLOBs as bytes. */

/** `[path + "/", path + "0")`: every path beneath `path` in byte order ("0" follows "/"). */
export const below = (path: string): [string, string] => [`${path}/`, `${path}0`];

/** A BLOB column's value as bytes: workerd gives an `ArrayBuffer`, D1 a list of numbers. */
export const bytesOf = (value: unknown): Uint8Array =>
  value instanceof ArrayBuffer ? new Uint8Array(value) : Uint8Array.from(value as ArrayLike<number>);
