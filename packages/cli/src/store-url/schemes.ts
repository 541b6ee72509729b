/**
 * Every kind of store a URL can name. Adding one (e.g. `postgres://` with @mem/postgres) is one backend
 * module and one entry here; parsing, descriptions, usage messages and opening follow from the table.
 */
import { fsBackend } from "./fs.js";
import { postgresBackend } from "./postgres.js";
import { redisBackend } from "./redis.js";
import { s3Backend } from "./s3.js";
import { sqliteBackend } from "./sqlite.js";

export const BACKENDS = [fsBackend, redisBackend, s3Backend, postgresBackend, sqliteBackend] as const;

type SpecOf<B> = B extends { parse(url: string): infer S } ? S : never;

/** A store URL without its `encrypted+` and `?tenant=` parts, read by its backend. */
export type PlainStoreSpec = SpecOf<(typeof BACKENDS)[number]>;
