/** Real stores for the command's tests: a directory, Redis, the S3 test server, and encrypted ones. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MemoryStore } from "@mem/core";
import { type RedisServer, type S3TestServer, startRedis, startS3 } from "@mem/testkit";
import { openStore } from "../../src/index.js";

export const KEY = Buffer.alloc(32, 7).toString("base64");

export interface Servers {
  redis: RedisServer;
  s3: S3TestServer;
  /** Environment for `mem` and `openStore`: AWS credentials of the S3 server, the encryption key. */
  env: Record<string, string>;
  tempDir(): string;
  stop(): Promise<void>;
}

export const startServers = async (): Promise<Servers> => {
  const [redis, s3] = await Promise.all([startRedis(), startS3()]);
  const dirs: string[] = [];
  return {
    redis,
    s3,
    env: {
      AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
      AWS_REGION: s3.region,
      MEMORY_KEY: KEY,
      // The SDK's notice about future Node versions would otherwise be on every command's stderr.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    },
    tempDir() {
      const dir = mkdtempSync(join(tmpdir(), "mem-cli-"));
      dirs.push(dir);
      return dir;
    },
    async stop() {
      await Promise.all([redis.stop(), s3.stop()]);
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
};

let counter = 0;
const unique = (): string => `t${process.pid}-${++counter}`;

export type StoreKind = "fs" | "redis" | "s3" | "encrypted+fs" | "sqlite";
export const STORE_KINDS: readonly StoreKind[] = ["fs", "redis", "s3", "encrypted+fs", "sqlite"];

/** A URL for a fresh, empty store of `kind`. */
export const freshUrl = (servers: Servers, kind: StoreKind): string => {
  switch (kind) {
    case "fs":
      return `fs:${join(servers.tempDir(), "memory")}`;
    case "encrypted+fs":
      return `encrypted+fs:${join(servers.tempDir(), "memory")}`;
    case "redis":
      return `${servers.redis.url}/${unique()}`;
    case "s3":
      return `s3://${servers.s3.bucket}/${unique()}?endpoint=${servers.s3.endpoint}`;
    case "sqlite":
      return `sqlite:${join(servers.tempDir(), "memory.db")}`;
  }
};

export const withStore = async <T>(servers: Servers, url: string, task: (s: MemoryStore) => Promise<T>) => {
  const store = await openStore(url, { env: servers.env });
  try {
    return await task(store);
  } finally {
    await store.close?.();
  }
};

/** Files with hidden and node_modules names, non-UTF-8 bytes, an empty file and a long Unicode path. */
export const SAMPLE: ReadonlyMap<string, Uint8Array> = new Map([
  ["/memories/notes.md", new TextEncoder().encode("# Notes\n- likes tea\n")],
  ["/memories/.config/settings.json", new TextEncoder().encode('{"hidden": true}\n')],
  ["/memories/projects/node_modules/dep/index.js", new TextEncoder().encode("module.exports = 1;\n")],
  ["/memories/projects/a/binary.bin", new Uint8Array([0, 255, 254, 10, 13, 0x80, 0xc3])],
  ["/memories/empty.txt", new Uint8Array(0)],
  [`/memories/${"ü".repeat(60)}/${"ß".repeat(40)}.txt`, new TextEncoder().encode("unicode path\n")],
]);

export const seed = (servers: Servers, url: string, files: ReadonlyMap<string, Uint8Array> = SAMPLE) =>
  withStore(servers, url, async (store) => {
    for (const [path, data] of files) await store.write(path, data, { ifAbsent: true });
  });

/** Every file of the store, hidden ones included, with its bytes. */
export const contents = (servers: Servers, url: string) =>
  withStore(servers, url, async (store) => {
    const files = (await store.files?.()) ?? [];
    const all = new Map<string, Buffer>();
    for (const { path } of files.sort((a, b) => (a.path < b.path ? -1 : 1))) {
      const file = await store.read(path);
      if (file) all.set(path, Buffer.from(file.data));
    }
    return all;
  });

export const asBuffers = (files: ReadonlyMap<string, Uint8Array>): Map<string, Buffer> =>
  new Map([...files].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, d]) => [p, Buffer.from(d)]));
