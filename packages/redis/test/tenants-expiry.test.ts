import { FakeClock } from "@mem/conformance";
import { executeCommand } from "@mem/core";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { bytes, indexProblems, TestRedis, textOf } from "./helpers.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await TestRedis.start();
});
afterAll(async () => {
  await redis?.stop();
});

const clientCount = async (client: Redis): Promise<number> =>
  String(await client.call("CLIENT", "LIST"))
    .trim()
    .split("\n").length;

describe("RedisStore tenants", () => {
  it("shares the parent's client: 10,000 scopes open no connection", async () => {
    const store = redis.store();
    await store.usage();
    const before = await clientCount(store.client as Redis);
    const scopes = Array.from({ length: 10_000 }, (_, i) => store.scope(`tenant-${i}`));
    await Promise.all(
      scopes.slice(0, 200).map((s, i) => s.write("/memories/a", bytes(String(i)), { ifAbsent: true })),
    );
    expect(await clientCount(store.client as Redis)).toBe(before);
    expect(scopes[9_999]!.client).toBe(store.client);
    await scopes[0]!.close();
    expect(store.client.status).toBe("ready");
  });

  it("gives each tenant a hash tag of its own inside the parent's key base", async () => {
    const store = new RedisStore({ client: redis.client(), prefix: "app:{acme}:" });
    const scoped = store.scope("user-1@example.com");
    expect(scoped.keyBase).toBe("app:{acme:tenant:user-1@example.com}:");
    expect(scoped.scope("p").keyBase).toBe("app:{acme:tenant:user-1@example.com:tenant:p}:");
    expect(redis.store().scope("x").keyBase).toMatch(/^\{test-\d+:tenant:x\}:$/);
    await scoped.write("/memories/n", bytes("hi"), { ifAbsent: true });
    expect(await store.stat("/memories/n")).toBeNull();
    expect(await indexProblems(scoped)).toEqual([]);
  });

  it("refuses a prefix whose keys would be a tenant's of another prefix", async () => {
    const client = redis.client();
    const alice = new RedisStore({ client, prefix: "app" }).scope("alice");
    await alice.write("/memories/secret", bytes("alice's"), { ifAbsent: true });
    for (const prefix of [
      "app:tenant:alice",
      "app:{app:tenant:alice}:",
      "{app:tenant:alice}:",
      "tenant:x",
      "app:tenant",
      "tenant",
      "x:{app:tenant:alice:tenant:p}",
    ]) {
      expect(() => new RedisStore({ client, prefix }), prefix).toThrow(
        new TypeError(
          "RedisStore: `prefix` must not hold `tenant` between colons in its hash tag: such keys belong to the tenants of another prefix (use `scope(tenant)` or `?tenant=`)",
        ),
      );
    }
    // A segment merely containing the word, or `tenant` outside the hash tag, is not a tenant's tag.
    for (const prefix of ["tenants", "my-tenant:x", "app:tenant-1", "tenant:{app}:"]) {
      expect(() => new RedisStore({ client, prefix }), prefix).not.toThrow();
    }
    expect(textOf((await alice.read("/memories/secret"))!.data)).toBe("alice's");
  });

  it("keeps usage in the scripts' counters: one round trip, whatever the number of files", async () => {
    const store = redis.store();
    for (let i = 0; i < 50; i++)
      await store.write(`/memories/d${i % 5}/f${i}`, bytes("abc"), { ifAbsent: true });
    await store.write("/memories/.hidden", bytes("12345"), { ifAbsent: true });
    const client = store.client as Redis;
    let sent = 0;
    const original = client.sendCommand.bind(client);
    client.sendCommand = (...args: Parameters<Redis["sendCommand"]>) => {
      sent += 1;
      return original(...args);
    };
    expect(await store.usage()).toEqual({ files: 51, bytes: 155 });
    client.sendCommand = original;
    expect(sent).toBe(1);
    await store.delete("/memories/d1");
    await store.rename("/memories/d2", "/memories/e");
    await executeCommand(store, {
      command: "str_replace",
      path: "/memories/e/f2",
      old_str: "abc",
      new_str: "x",
    });
    expect(await store.usage()).toEqual({ files: 41, bytes: 123 });
    expect(await indexProblems(store)).toEqual([]);
  });
});

describe("RedisStore expiry", () => {
  it("takes expireAfterSeconds, keeps ttlSeconds as its old name, and refuses both at once", () => {
    expect(() => redis.store({ expireAfterSeconds: 0 })).toThrow(TypeError);
    expect(() => redis.store({ ttlSeconds: 5, expireAfterSeconds: 6 })).toThrow(TypeError);
    expect(() => redis.store({ ttlSeconds: 5, expireAfterSeconds: 5 })).not.toThrow();
  });

  it("follows the injected clock, and gives every key it touches a Redis expiry of twice the limit as a backstop", async () => {
    const clock = new FakeClock();
    const store = redis.store({ expireAfterSeconds: 100, clock: clock.now });
    await store.write("/memories/d/a", bytes("abc"), { ifAbsent: true });
    const client = store.client as Redis;
    for (const key of ["f:/memories/d/a", "d:/memories/d", "d:/memories", "t", "u", "s", "z", "seq"]) {
      const ttl = await client.pttl(`${store.keyBase}${key}`);
      expect(ttl, key).toBeGreaterThan(190_000);
      expect(ttl, key).toBeLessThanOrEqual(200_000);
    }
    expect(Number(await client.zscore(`${store.keyBase}t`, "/memories/d/a"))).toBe(clock.now());
    clock.advance(101);
    expect(await store.read("/memories/d/a")).toBeNull();
    expect(await store.usage()).toEqual({ files: 0, bytes: 0 });
    expect(await indexProblems(store)).toEqual([]);
  });

  it("keeps the totals right when the backstop removed a file key before the scripts did", async () => {
    const clock = new FakeClock();
    const store = redis.store({ expireAfterSeconds: 100, clock: clock.now });
    await store.write("/memories/d/a", bytes("abc"), { ifAbsent: true });
    await store.write("/memories/b", bytes("12"), { ifAbsent: true });
    await (store.client as Redis).del(`${store.keyBase}f:/memories/d/a`);
    clock.advance(101);
    expect(await store.sweep()).toEqual({ paths: ["/memories/b", "/memories/d/a"], bytes: 5 });
    expect(await store.usage()).toEqual({ files: 0, bytes: 0 });
    expect(await indexProblems(store)).toEqual([]);
  });
});
