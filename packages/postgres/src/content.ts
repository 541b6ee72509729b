/**
 * File content on the wire. `bytea` reaches node-postgres as hex text (twice the bytes, and encoded and
 * decoded on both sides), and node-postgres reads every result field as UTF-8 text, so a binary result is
 * not possible. A file whose content is UTF-8 without NUL, the common case, is marked so when written
 * (the table's `utf8` column) and read back as `text`: half the bytes, and the server converts it without
 * an encoding pass.
 */
import { isUtf8 } from "node:buffer";

const encoder = new TextEncoder();

/** The bytes as a Buffer over the same memory, as `pg` sends a `bytea` parameter. */
export const rawBytes = (data: Uint8Array): Buffer =>
  Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** Whether `data` can be read back as PostgreSQL `text`: valid UTF-8 and no NUL, which `text` cannot hold. */
export const textable = (data: Uint8Array): boolean => data.indexOf(0) === -1 && isUtf8(data);

/**
 * The SQL of a file row's content as the two result columns `{prefix}text` (text, for rows marked `utf8` on
 * a UTF-8 database) and `{prefix}content` (bytea, otherwise), of the row aliased `x`.
 */
export const contentColumns = (prefix: string): string => {
  const text = "x.utf8 AND current_setting('server_encoding') = 'UTF8'";
  return `CASE WHEN ${text} THEN convert_from(x.content, 'UTF8') END AS ${prefix}text,
    CASE WHEN ${text} THEN NULL ELSE x.content END AS ${prefix}content`;
};

/** A row's content from the two columns of `contentColumns`. */
export const contentOf = (text: unknown, content: unknown): Uint8Array =>
  typeof text === "string" ? encoder.encode(text) : new Uint8Array(content as Buffer);
