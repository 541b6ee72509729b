/**
 * The store's own parsers for the result types it reads. node-postgres parses every result with the
 * process-wide parsers that `pg.types.setTypeParser` changes, so an application's override (booleans
 * left as text, `bytea` as a string) would otherwise change what the store reads: a delete reported as
 * "does not exist", a binary file read back empty. Every query the store sends carries these.
 */

/// <reference path="./postgres-bytea.d.ts" />
import pg from "pg";
import parseBytea from "postgres-bytea";

const asText = (value: string): string => value;

const OWN = new Map<number, (value: string) => unknown>([
  [16, (value: string) => value === "t"], // bool
  [17, parseBytea], // bytea, hex or escape output
  [18, asText], // "char"
  [19, asText], // name
  [20, asText], // int8, as text as node-postgres does by default: the store converts where it reads one
  [21, Number], // int2
  [23, Number], // int4
  [25, asText], // text
  [26, asText], // oid
  [1043, asText], // varchar
]);

const getTypeParser = (oid: number, format?: "text" | "binary") =>
  (format !== "binary" && OWN.get(oid)) || pg.types.getTypeParser(oid, format);

/** The `types` of every query the store sends. */
export const STORE_TYPES = { getTypeParser } as pg.CustomTypesConfig;
