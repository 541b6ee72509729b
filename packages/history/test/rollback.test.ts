import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { PostgresStore } from "@mem/postgres";
import { RedisStore } from "@mem/redis";
import { S3Store } from "@mem/s3";
import { SqliteStore } from "@mem/sqlite";
import {
  type PostgresServer,
  type RedisServer,
  type S3TestServer,
  startPostgres,
  startRedis,
  startS3,
} from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryStore } from "../src/index.js";

const decoder = new TextDecoder();

/** A clock the test moves by hand, one second per change, so every change has a time of its own. */
const ticking = (start: number) => {
  let now = start;
  const tick = () => {
    now += 1000;
    return now;
  };
  return { clock: () => now, tick };
};

/** Every file of `store` with its text, hidden ones left out (history's bookkeeping). */
const snapshot = async (store: MemoryStore): Promise<Record<string, string>> => {
  const listing = await store.list("/memories", 10);
  const out: Record<string, string> = {};
  for (const entry of listing?.entries ?? []) {
    if (entry.kind !== "file") continue;
    out[entry.path] = decoder.decode((await store.read(entry.path))!.data);
  }
  return out;
};

/**
 * A good session, then a bad one (an agent that rewrites, deletes, creates and moves), then someone else's
 * edit; rolls back the bad agent's changes, checks the store is as it was for them, and undoes the rollback.
 */
const badSession = async (
  make: (clock: () => number) => HistoryStore,
  tenant: string | undefined,
): Promise<void> => {
  const time = ticking(Date.UTC(2026, 10, 27, 9));
  const root = make(time.clock);
  const history = tenant === undefined ? root : root.scope!(tenant);
  const as = async (actor: string, input: Record<string, unknown>) => {
    time.tick();
    const result = await executeCommand(history, input, { actor });
    expect(result.isError, result.content).toBe(false);
  };
  await as("alice", { command: "create", path: "/memories/plan.md", file_text: "step 1\n" });
  await as("alice", { command: "create", path: "/memories/people.md", file_text: "bob likes tea\n" });
  await as("alice", { command: "create", path: "/memories/dir/c.md", file_text: "c\n" });
  await as("alice", { command: "str_replace", path: "/memories/plan.md", old_str: "1", new_str: "2" });
  const good = await snapshot(history);
  const to = time.tick();
  await as("mallory", {
    command: "str_replace",
    path: "/memories/plan.md",
    old_str: "step 2",
    new_str: "send keys",
  });
  await as("mallory", { command: "delete", path: "/memories/people.md" });
  await as("mallory", { command: "create", path: "/memories/evil.md", file_text: "obey\n" });
  await as("mallory", { command: "rename", old_path: "/memories/dir", new_path: "/memories/moved" });
  await as("bob", { command: "create", path: "/memories/bob.md", file_text: "mine\n" });
  const bad = await snapshot(history);

  // The change log: every change, creates and deletes included, oldest first, paged.
  const all = await root.changes({ ...(tenant !== undefined && { tenant }) });
  const scoped = history;
  expect(all.changes.map((c) => [c.command, c.actor, c.path, c.newPath ?? null, c.version !== null])).toEqual(
    [
      ["create", "alice", "/memories/plan.md", null, false],
      ["create", "alice", "/memories/people.md", null, false],
      ["create", "alice", "/memories/dir/c.md", null, false],
      ["str_replace", "alice", "/memories/plan.md", null, true],
      ["str_replace", "mallory", "/memories/plan.md", null, true],
      ["delete", "mallory", "/memories/people.md", null, true],
      ["create", "mallory", "/memories/evil.md", null, false],
      ["rename", "mallory", "/memories/dir/c.md", "/memories/moved/c.md", true],
      ["create", "bob", "/memories/bob.md", null, false],
    ],
  );
  expect(all.next).toBeUndefined();
  const first = await scoped.changes({ since: new Date(to).toISOString(), by: "mallory", limit: 3 });
  expect(first.changes.map((c) => c.command)).toEqual(["str_replace", "delete", "create"]);
  const second = await scoped.changes({ since: to, by: "mallory", limit: 3, after: first.next! });
  expect(second.changes.map((c) => c.command)).toEqual(["rename"]);
  expect((await scoped.changes({ path: "/memories/moved" })).changes.map((c) => c.path)).toEqual([
    "/memories/dir/c.md",
  ]);
  expect((await scoped.changes({ until: to })).changes).toHaveLength(4);

  // A dry run says what would change, and changes nothing.
  const dry = await root.rollback({
    to,
    by: "mallory",
    dryRun: true,
    ...(tenant !== undefined && { tenant }),
  });
  expect(dry).toEqual({
    restored: ["/memories/dir/c.md", "/memories/people.md", "/memories/plan.md"],
    deleted: ["/memories/evil.md", "/memories/moved/c.md"],
    skipped: [],
  });
  expect(await snapshot(history)).toEqual(bad);

  const done = await root.rollback({
    to: new Date(to),
    by: "mallory",
    actor: "ops",
    ...(tenant !== undefined && { tenant }),
  });
  expect(done.restored).toEqual(dry.restored);
  expect(done.deleted).toEqual(dry.deleted);
  expect(await snapshot(history)).toEqual({ ...good, "/memories/bob.md": "mine\n" });
  // One step of the log, by who rolled back; the versions it kept carry the same actor.
  const log = await scoped.changes({ since: to });
  const step = log.changes.at(-1)!;
  expect(step).toMatchObject({
    id: done.id,
    command: "rollback",
    actor: "ops",
    path: "/memories",
    version: null,
  });
  const [kept] = await scoped.versions("/memories/plan.md");
  expect(kept).toMatchObject({ command: "rollback", actor: "ops" });
  expect(decoder.decode((await scoped.readVersion("/memories/plan.md", kept?.id ?? ""))!)).toBe(
    "send keys\n",
  );

  // Undone in one step too.
  const undone = await root.rollback({
    undo: done.id!,
    actor: "ops",
    ...(tenant !== undefined && { tenant }),
  });
  expect(await snapshot(history)).toEqual(bad);
  expect(undone.id).not.toBe(done.id);
  // A rollback of everything since `to`, whoever made it: bob's file goes too.
  await root.rollback({ to, ...(tenant !== undefined && { tenant }) });
  expect(await snapshot(history)).toEqual(good);
};

describe("HistoryStore changes() and rollback()", () => {
  it("rolls back a bad session on InMemoryStore, and refuses bad options with a TypeError naming them", async () => {
    await badSession((clock) => new HistoryStore(new InMemoryStore(), { clock }), undefined);
    const store = new HistoryStore(new InMemoryStore());
    await expect(store.changes({ since: "yesterday" })).rejects.toThrow(/since must be a time/);
    await expect(store.changes({ limit: 0 })).rejects.toThrow(/limit must be/);
    await expect(store.rollback({} as never)).rejects.toThrow(TypeError);
    await expect(store.rollback({ undo: "0000000aa-0000-00000000" })).rejects.toThrow(RangeError);
    await expect(store.rollback({ to: 0, actor: "x".repeat(200) })).rejects.toThrow(TypeError);
  });

  it("leaves files whose earlier content was redacted as they are, and says so", async () => {
    const time = ticking(Date.UTC(2026, 10, 27));
    const store = new HistoryStore(new InMemoryStore(), { clock: time.clock });
    time.tick();
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "secret\n" });
    const to = time.tick();
    time.tick();
    await executeCommand(store, {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "secret",
      new_str: "x",
    });
    const [version] = await store.versions("/memories/a.md");
    await store.redact("/memories/a.md", version!.id);
    expect(await store.rollback({ to })).toEqual({ restored: [], deleted: [], skipped: ["/memories/a.md"] });
  });

  it("records a failed edit nowhere: no version, no change", async () => {
    const store = new HistoryStore(new InMemoryStore());
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "one\n" });
    const read = await store.read("/memories/a.md");
    await store.write("/memories/a.md", new TextEncoder().encode("two\n"), { ifVersion: read!.version });
    await expect(
      store.write("/memories/a.md", new TextEncoder().encode("three\n"), { ifVersion: read!.version }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await store.versions("/memories/a.md")).toHaveLength(1);
    expect((await store.changes()).changes.map((c) => c.command)).toEqual(["create", "edit"]);
  });

  it("rolls back a bad session on FsStore and SqliteStore, one tenant among others", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mem-rollback-"));
    try {
      const fs = new FsStore({ root: join(dir, "fs") });
      await badSession((clock) => new HistoryStore(fs, { clock }), "acme");

      const sqlite = new SqliteStore({ path: join(dir, "memory.db") });
      await badSession((clock) => new HistoryStore(sqlite, { clock }), "acme");
      await badSession((clock) => new HistoryStore(sqlite, { clock }), undefined);
      await sqlite.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("rollback on server stores", () => {
  let redis: RedisServer;
  let pg: PostgresServer;
  let s3: S3TestServer;
  let client: S3Client;
  beforeAll(async () => {
    [redis, pg, s3] = await Promise.all([startRedis(), startPostgres(), startS3()]);
    client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      credentials: s3.credentials,
      forcePathStyle: true,
    });
  }, 120_000);
  afterAll(async () => {
    client?.destroy();
    await Promise.all([redis?.stop(), pg?.stop(), s3?.stop()]);
  });

  it("on RedisStore, a tenant", async () => {
    const store = new RedisStore({ url: redis.url, prefix: "rollback" });
    await badSession((clock) => new HistoryStore(store, { clock }), "acme");
    await store.close();
  }, 60_000);

  it("on PostgresStore, a tenant", async () => {
    const store = new PostgresStore({ connectionString: pg.url, table: "rollback" });
    await badSession((clock) => new HistoryStore(store, { clock }), "acme");
    await store.close();
  }, 60_000);

  it("on S3Store, versions in a second prefix", async () => {
    const files = new S3Store({ client, bucket: s3.bucket, prefix: "rb/files/" });
    const versions = new S3Store({ client, bucket: s3.bucket, prefix: "rb/versions/" });
    await badSession((clock) => new HistoryStore(files, { history: versions, clock }), undefined);
  }, 120_000);
});
