import { executeCommand, StoreFailureError } from "@mem/core";
import { freePort, type RedisServer, startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore, type RedisStoreOptions } from "../src/index.js";

const make = (options: unknown) => () => new RedisStore(options as RedisStoreOptions);

describe("RedisStore options", () => {
  it("rejects bad options with a TypeError naming the option and what is allowed", () => {
    expect(make(undefined)).toThrow(new TypeError("RedisStore: options must be an object, not undefined"));
    expect(make({})).toThrow(new TypeError('RedisStore: give exactly one of the options "client" or "url"'));
    expect(make({ url: "redis://127.0.0.1:1", client: {} })).toThrow(
      new TypeError('RedisStore: give exactly one of the options "client" or "url"'),
    );
    expect(make({ url: "http://x" })).toThrow(
      new TypeError('RedisStore: option "url" must be a redis: or rediss: URL'),
    );
    expect(make({ url: "not a url :secret@" })).toThrow(
      /^RedisStore: option "url" must be a redis: or rediss: URL$/,
    );
    expect(make({ client: "redis://x" })).toThrow(
      new TypeError('RedisStore: option "client" must be an object'),
    );
    const url = "redis://127.0.0.1:1";
    expect(make({ url, prefix: "" })).toThrow(
      new TypeError('RedisStore: option "prefix" must be a non-empty string'),
    );
    expect(make({ url, operationTimeoutMs: 0 })).toThrow(
      new TypeError('RedisStore: option "operationTimeoutMs" must be an integer >= 1'),
    );
    expect(make({ url, redisOptions: "lazy" })).toThrow(
      new TypeError('RedisStore: option "redisOptions" must be an object'),
    );
  });

  it("refuses an ioredis keyPrefix, whose keys the store's scripts would not use, before connecting", () => {
    const advice =
      "is not supported (the store's scripts build their own keys); give the namespace as `prefix` instead";
    expect(make({ url: "redis://127.0.0.1:1", redisOptions: { keyPrefix: "app:" } })).toThrow(
      new TypeError(`RedisStore: \`redisOptions.keyPrefix\` ${advice}`),
    );
    const client = new Redis({ keyPrefix: "app:", lazyConnect: true });
    expect(make({ client })).toThrow(
      new TypeError(`RedisStore: the client's \`keyPrefix\` option ${advice}`),
    );
    expect(client.status).toBe("wait");
    client.disconnect();
    const plain = new Redis({ lazyConnect: true });
    expect(make({ client: plain })).not.toThrow();
    plain.disconnect();
  });
});

describe("a client with stringNumbers", () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("answers as any other: integers from the server come as strings there", async () => {
    const client = new Redis(server.url, { stringNumbers: true });
    try {
      const root = new RedisStore({ client, prefix: "numbers" });
      const store = root.scope("t");
      const run = async (input: Record<string, unknown>) => (await executeCommand(store, input)).content;
      await run({ command: "create", path: "/memories/a/b.md", file_text: "one\n" });
      await run({ command: "create", path: "/memories/c.md", file_text: "c" });
      expect(await run({ command: "delete", path: "/memories/a/b.md" })).toBe(
        "Successfully deleted /memories/a/b.md",
      );
      expect(await store.delete("/memories/none")).toBe(false);
      expect(await store.files()).toEqual([{ path: "/memories/c.md", size: 1 }]);
      expect(await store.usage()).toEqual({ files: 1, bytes: 1 });
      await run({ command: "delete", path: "/memories/c.md" });
      // A tenant left with no file and no nested tenant is not listed.
      expect(await root.tenants()).toEqual({ tenants: [] });
    } finally {
      client.disconnect();
    }
  });
});

describe("RedisStore.check", () => {
  let server: RedisServer;
  let locked: RedisServer;
  beforeAll(async () => {
    [server, locked] = await Promise.all([startRedis(), startRedis()]);
    const admin = new Redis(locked.url);
    await admin.config("SET", "requirepass", "right-pw");
    admin.disconnect();
  });
  afterAll(async () => {
    await Promise.all([server?.stop(), locked?.stop()]);
  });

  const failureOf = async (store: RedisStore): Promise<StoreFailureError> => {
    try {
      const error = await store.check().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreFailureError);
      return error as StoreFailureError;
    } finally {
      await store.close();
    }
  };

  it("passes against a reachable server", async () => {
    const store = new RedisStore({ url: server.url, prefix: "check" });
    await expect(store.check()).resolves.toBeUndefined();
    await store.close();
  });

  it("fails fast when nothing listens", async () => {
    const store = new RedisStore({ url: `redis://127.0.0.1:${await freePort()}` });
    expect((await failureOf(store)).reason).toBe("connection refused");
  });

  it("fails on a wrong password, without naming it", async () => {
    const store = new RedisStore({ url: `redis://:wrong-pw@127.0.0.1:${locked.port}` });
    const failure = await failureOf(store);
    expect(failure.reason).not.toContain("wrong-pw");
    expect(failure.message).not.toContain("wrong-pw");
    const good = new RedisStore({ url: `redis://:right-pw@127.0.0.1:${locked.port}` });
    await expect(good.check()).resolves.toBeUndefined();
    await good.close();
  });
});
