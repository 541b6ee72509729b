/** The implementations the bench compares, with what each one promises about durability. */
import type { S3Client } from "@aws-sdk/client-s3";
import { anchorBackend } from "./anchor.js";
import {
  encryptedFsBackend,
  fsBackend,
  memoryBackend,
  postgresBackend,
  redisBackend,
  s3Backend,
  sqliteBackend,
} from "./ours.js";
import type { PgCounters } from "./pg-counters.js";
import type { RedisCounters } from "./redis-counters.js";
import type { Backend, ChildEnv } from "./subject.js";
import { Unavailable } from "./subject.js";

export type Kind = "anchor" | "ours" | "raw";
export type Family = "fs" | "memory" | "redis" | "s3" | "postgres";

export interface ImplementationInfo {
  name: string;
  kind: Kind;
  family: Family;
  label: string;
  durability: string;
  /** The server the parent must start for it. */
  needs?: "redis" | "s3" | "postgres";
}

/** Hooks the child hands to factories: request counters and clients bound to the parent's servers. */
export interface Hooks {
  /** Counting Redis clients; undefined without a redis-server. */
  redis: RedisCounters | undefined;
  /** Counting PostgreSQL pools; undefined without a PostgreSQL server. */
  postgres: PgCounters | undefined;
  s3RequestCounters: () => Promise<Record<string, number>>;
  s3Client: () => Promise<{ client: S3Client; destroy: () => void }>;
}

export const IMPLEMENTATIONS: readonly ImplementationInfo[] = [
  {
    name: "anchor",
    kind: "anchor",
    family: "fs",
    label: "SDK BetaLocalFilesystemMemoryTool (@anthropic-ai/sdk 1.12)",
    durability: "fsync of the file on create and edits; no directory fsync; renames and deletes not synced",
  },
  {
    name: "memory",
    kind: "ours",
    family: "memory",
    label: "executeCommand + InMemoryStore (core overhead)",
    durability: "none (process memory)",
  },
  {
    name: "fs",
    kind: "ours",
    family: "fs",
    label: "executeCommand + FsStore",
    durability: "fsync of file and directory before replying; cross-process lock",
  },
  {
    name: "encrypted-fs",
    kind: "ours",
    family: "fs",
    label: "executeCommand + EncryptedStore over FsStore",
    durability: "as fs",
  },
  {
    name: "redis",
    kind: "ours",
    family: "redis",
    label: "executeCommand + RedisStore (local redis-server)",
    durability: "as the server is configured (bench: no persistence)",
    needs: "redis",
  },
  {
    name: "s3",
    kind: "ours",
    family: "s3",
    label: "executeCommand + S3Store (s3rver through the testkit proxy)",
    durability: "as the object store (s3rver: files on local disk, no fsync)",
    needs: "s3",
  },
  {
    name: "postgres",
    kind: "ours",
    family: "postgres",
    label: "executeCommand + PostgresStore (local PostgreSQL)",
    durability: "commit waits for the WAL write; the bench server runs with fsync=off",
    needs: "postgres",
  },
  {
    name: "sqlite",
    kind: "ours",
    family: "fs",
    label: "executeCommand + SqliteStore (one file, WAL; one store per process, shared by its agents)",
    durability: "WAL fsync (synchronous=FULL) before replying; changes that arrive together share a commit",
  },
  {
    name: "raw-fs",
    kind: "raw",
    family: "fs",
    label: "plain fs: readFile; writeFile + fsync + rename",
    durability: "fsync of the file; no directory fsync",
  },
  {
    name: "raw-redis",
    kind: "raw",
    family: "redis",
    label: "raw ioredis GET/SET",
    durability: "as redis",
    needs: "redis",
  },
  {
    name: "raw-s3",
    kind: "raw",
    family: "s3",
    label: "raw S3 GetObject/PutObject (same proxy and server)",
    durability: "as the object store",
    needs: "s3",
  },
  {
    name: "raw-postgres",
    kind: "raw",
    family: "postgres",
    label: "raw pg: SELECT / UPDATE / INSERT / DELETE on one table",
    durability: "as postgres",
    needs: "postgres",
  },
];

export const createBackend = async (name: string, env: ChildEnv, hooks: Hooks): Promise<Backend> => {
  switch (name) {
    case "anchor":
      return anchorBackend(env);
    case "memory":
      return memoryBackend();
    case "fs":
      return fsBackend(env);
    case "encrypted-fs":
      return encryptedFsBackend(env);
    case "redis":
      return redisBackend(env, hooks.redis);
    case "s3":
      return s3Backend(env, hooks.s3RequestCounters, hooks.s3Client);
    case "postgres":
      return postgresBackend(hooks.postgres);
    case "sqlite":
      return sqliteBackend(env);
    case "raw-fs":
      return (await import("./raw-fs.js")).rawFsBackend(env);
    case "raw-postgres": {
      if (!hooks.postgres) throw new Unavailable("no PostgreSQL server (see the run's log)");
      return (await import("./raw-postgres.js")).rawPostgresBackend(hooks.postgres);
    }
    case "raw-redis": {
      if (!hooks.redis) throw new Unavailable("no redis-server (see the run's log)");
      return (await import("./raw-redis.js")).rawRedisBackend(hooks.redis);
    }
    case "raw-s3": {
      if (!env.s3) throw new Unavailable("no S3 server (see the run's log)");
      return (await import("./raw-s3.js")).rawS3Backend(
        { ...env, s3: env.s3 },
        hooks.s3RequestCounters,
        hooks.s3Client,
      );
    }
    default:
      throw new Error(`unknown implementation ${name}`);
  }
};
