/** Every built-in scheme opens its store, against real servers, with tenants kept apart. */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import {
  type PostgresServer,
  type RedisServer,
  type S3TestServer,
  startPostgres,
  startRedis,
  startS3,
} from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeStore, openStore, parseStoreUrl } from "../src/index.js";

const KEY = Buffer.alloc(32, 5).toString("base64");
let redis: RedisServer;
let s3: S3TestServer;
let postgres: PostgresServer;
let base: string;
let env: Record<string, string>;

beforeAll(async () => {
  [redis, s3, postgres] = await Promise.all([startRedis(), startS3(), startPostgres()]);
  base = mkdtempSync(join(tmpdir(), "mem-open-schemes-"));
  env = {
    AWS_ACCESS_KEY_ID: s3.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.credentials.secretAccessKey,
    AWS_REGION: s3.region,
    MEMORY_KEY: KEY,
  };
}, 180_000);
afterAll(async () => {
  await Promise.all([redis?.stop(), s3?.stop(), postgres?.stop()]);
  if (base) rmSync(base, { recursive: true, force: true });
});

const URLS: Record<string, () => string> = {
  fs: () => `fs:${join(base, "fs")}`,
  sqlite: () => `sqlite:${join(base, "memory.db")}`,
  redis: () => `${redis.url}/open-test`,
  s3: () => `s3://${s3.bucket}/open-test?endpoint=${s3.endpoint}`,
  postgres: () => postgres.url,
};

describe.each(Object.keys(URLS))("%s", (kind) => {
  it("opens, keeps what was written, and keeps tenants apart", async () => {
    const url = URLS[kind]!();
    const alice = await openStore(`${url}${url.includes("?") ? "&" : "?"}tenant=alice`, { env });
    const bob = await openStore(`${url}${url.includes("?") ? "&" : "?"}tenant=bob`, { env });
    try {
      await executeCommand(alice, { command: "create", path: "/memories/a.txt", file_text: "alice\n" });
      expect((await executeCommand(bob, { command: "view", path: "/memories/a.txt" })).isError).toBe(true);
    } finally {
      await alice.close?.();
      await bob.close?.();
    }
    const again = await openStore(`${url}${url.includes("?") ? "&" : "?"}tenant=alice`, { env });
    try {
      expect(await executeCommand(again, { command: "view", path: "/memories/a.txt" })).toEqual({
        content: "Here's the content of /memories/a.txt with line numbers:\n     1\talice",
        isError: false,
      });
    } finally {
      await again.close?.();
    }
  });

  it("encrypts with encrypted+", async () => {
    const url = `encrypted+${URLS[kind]!()}`;
    const store = await openStore(`${url}${url.includes("?") ? "&" : "?"}tenant=sealed`, { env });
    try {
      await executeCommand(store, { command: "create", path: "/memories/s.txt", file_text: "secret\n" });
      expect((await executeCommand(store, { command: "view", path: "/memories/s.txt" })).content).toContain(
        "secret",
      );
    } finally {
      await store.close?.();
    }
  });
});

describe("descriptions of real URLs", () => {
  it("never show the password of the server", () => {
    const text = describeStore(parseStoreUrl(postgres.url));
    const password = new URL(postgres.url).password;
    expect(password).not.toBe("");
    expect(text).not.toContain(password);
    expect(text).toMatch(/^PostgreSQL postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/postgres$/);
  });
});

describe("sqlite: URLs", () => {
  it("read a file path, relative or absolute, and refuse an empty one or a query", () => {
    expect(parseStoreUrl("sqlite:./memory.db").backend).toEqual({ kind: "sqlite", file: "./memory.db" });
    expect(parseStoreUrl("sqlite:/var/lib/m.db").backend).toEqual({ kind: "sqlite", file: "/var/lib/m.db" });
    expect(parseStoreUrl("sqlite://tmp/m.db").backend).toEqual({ kind: "sqlite", file: "tmp/m.db" });
    expect(() => parseStoreUrl("sqlite:")).toThrow(/needs a file/);
    expect(() => parseStoreUrl("sqlite:./m.db?mode=ro")).toThrow(/takes no query other than \?tenant=/);
    expect(describeStore(parseStoreUrl("encrypted+sqlite:./m.db?tenant=bob"))).toBe(
      "SQLite database ./m.db, encrypted, tenant bob",
    );
  });

  it("open a relative file against the cwd, and create none with create: false", async () => {
    const cwd = mkdtempSync(join(base, "cwd-"));
    await expect(openStore("sqlite:./memory.db", { cwd, env: {}, create: false })).rejects.toThrow(
      "no store at ./memory.db",
    );
    expect(existsSync(join(cwd, "memory.db"))).toBe(false);
    const store = await openStore("sqlite:./memory.db", { cwd, env: {} });
    await store.close?.();
    expect(existsSync(join(cwd, "memory.db"))).toBe(true);
  });
});
