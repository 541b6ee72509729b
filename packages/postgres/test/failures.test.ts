import { executeCommand, type MemoryStore, StoreFailureError } from "@mem/core";
import { freePort } from "@mem/testkit";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { QueryCounter, TestPostgres, textOf } from "./helpers.js";

let db: TestPostgres;

beforeAll(async () => {
  db = await TestPostgres.start();
});
afterAll(() => db?.stop());

const run = (store: MemoryStore, input: Record<string, unknown>) => executeCommand(store, input);

/** Holds a tenant's write lock (its /memories row) in an open transaction until `release()`. */
const holdTenantLock = async (url: string, tenant: string, alsoUpdate = false) => {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  await client.query("BEGIN");
  await client.query("SELECT 1 FROM mem_files WHERE tenant = $1 AND path = '/memories' FOR UPDATE", [tenant]);
  if (alsoUpdate) {
    await client.query("UPDATE mem_files SET files = files WHERE tenant = $1 AND path = '/memories'", [
      tenant,
    ]);
  }
  return {
    release: async () => {
      await client.query("COMMIT").catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
};

/** Resolves once a backend with that application name waits for a lock. */
const waitUntilBlocked = async (applicationName: string, on: TestPostgres = db) => {
  for (let i = 0; i < 200; i++) {
    const rows = await on.sql(
      "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [applicationName],
    );
    if (rows.rowCount) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the store's statement never waited for the lock");
};

const secrets = (server: { password: string; url: string }) => [server.password, server.url, "postgres://"];

describe("failures become SPEC §5 results with safe reasons", () => {
  it("reports a read-only database and changes nothing; reads still work", async () => {
    const writable = db.store();
    await run(writable, { command: "create", path: "/memories/a.md", file_text: "a\n" });
    const pool = db.pool({ options: "-c default_transaction_read_only=on" });
    const store = new PostgresStore({ pool, tenant: writable.tenant });
    expect(await run(store, { command: "create", path: "/memories/b.md", file_text: "b" })).toEqual({
      content: "Error: create failed for /memories/b.md: the database is read-only",
      isError: true,
    });
    expect(
      await run(store, { command: "str_replace", path: "/memories/a.md", old_str: "a", new_str: "z" }),
    ).toEqual({
      content: "Error: str_replace failed for /memories/a.md: the database is read-only",
      isError: true,
    });
    expect((await run(store, { command: "view", path: "/memories/a.md" })).content).toContain("     1\ta");
    expect(await writable.read("/memories/b.md")).toBeNull();
  });

  it("reports a statement timeout as nothing applied", async () => {
    const writable = db.store();
    await writable.check();
    await run(writable, { command: "create", path: "/memories/a.md", file_text: "a\n" });
    const store = new PostgresStore({
      pool: db.pool({ statement_timeout: 300, application_name: "timeout-test" }),
      tenant: writable.tenant,
    });
    const lock = await holdTenantLock(db.server.url, writable.tenantKey);
    try {
      expect(await run(store, { command: "create", path: "/memories/b.md", file_text: "b" })).toEqual({
        content: "Error: create failed for /memories/b.md: the statement timed out",
        isError: true,
      });
    } finally {
      await lock.release();
    }
    expect(await writable.read("/memories/b.md")).toBeNull();
  });

  it("retries serialization failures with backoff until the write succeeds", async () => {
    const writable = db.store();
    await run(writable, { command: "create", path: "/memories/a.md", file_text: "a\n" });
    const counter = new QueryCounter();
    const pool = counter.attach(
      db.pool({
        options: "-c default_transaction_isolation=serializable",
        application_name: "serializable-test",
      }),
    );
    const store = new PostgresStore({ pool, tenant: writable.tenant });
    await store.check();
    // The write's snapshot is taken before the lock holder commits its own update of the tenant row, so
    // at serializable isolation its first attempt must fail with 40001.
    const lock = await holdTenantLock(db.server.url, writable.tenantKey, true);
    const pending = run(store, { command: "create", path: "/memories/b.md", file_text: "b" });
    await waitUntilBlocked("serializable-test");
    await lock.release();
    expect(await pending).toEqual({
      content: "File created successfully at: /memories/b.md",
      isError: false,
    });
    expect(counter.errors).toContain("40001");
    expect(textOf((await writable.read("/memories/b.md"))!.data)).toBe("b");
  });

  it("names no password or connection string when authentication fails", async () => {
    const wrong = db.server.url.replace(db.server.password, "hunter2-not-the-password");
    const store = new PostgresStore({ connectionString: wrong });
    try {
      const error = await store.check().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreFailureError);
      expect((error as StoreFailureError).reason).toBe("authentication failed");
      const result = await run(store, { command: "create", path: "/memories/a.md", file_text: "a" });
      expect(result).toEqual({
        content: "Error: create failed for /memories/a.md: authentication failed",
        isError: true,
      });
      for (const secret of [...secrets(db.server), "hunter2"]) {
        expect(result.content).not.toContain(secret);
        expect((error as StoreFailureError).message).not.toContain(secret);
      }
    } finally {
      await store.close();
    }
  });

  it("reports an unreachable server as a refused connection, without its address or password", async () => {
    const port = await freePort();
    const url = `postgres://admin:s3cret-pw@127.0.0.1:${port}/memories`;
    const store = new PostgresStore({ connectionString: url });
    try {
      const result = await run(store, { command: "view", path: "/memories" });
      expect(result).toEqual({
        content: "Error: view failed for /memories: connection refused",
        isError: true,
      });
      for (const secret of ["s3cret-pw", url, String(port)]) expect(result.content).not.toContain(secret);
    } finally {
      await store.close();
    }
  });
});

describe("a server that goes away", () => {
  let own: TestPostgres;
  beforeAll(async () => {
    own = await TestPostgres.start();
  });
  afterAll(() => own?.stop());

  it("fails while the server is down and works again when it is back", async () => {
    const store = own.store();
    await run(store, { command: "create", path: "/memories/a.md", file_text: "a\n" });
    await own.server.kill();
    for (const input of [
      { command: "view", path: "/memories/a.md" },
      { command: "create", path: "/memories/b.md", file_text: "b" },
      { command: "delete", path: "/memories/a.md" },
    ]) {
      const result = await run(store, input);
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(
        new RegExp(
          `^Error: ${input.command} failed for /memories/[ab].md: (connection refused|connection lost)$`,
        ),
      );
      for (const secret of secrets(own.server)) expect(result.content).not.toContain(secret);
    }
    await own.server.start();
    expect((await run(store, { command: "view", path: "/memories/a.md" })).content).toContain("     1\ta");
    expect((await run(store, { command: "create", path: "/memories/b.md", file_text: "b" })).isError).toBe(
      false,
    );
  });

  it("says a write may still be applied when the connection drops after the write was sent", async () => {
    const store = new PostgresStore({
      pool: own.pool({ application_name: "lost-write" }),
      tenant: own.freshTenant(),
    });
    await run(store, { command: "create", path: "/memories/a.md", file_text: "a\n" });
    const lock = await holdTenantLock(own.server.url, store.tenantKey);
    const pending = run(store, { command: "create", path: "/memories/b.md", file_text: "b" });
    await waitUntilBlocked("lost-write", own);
    await own.server.kill();
    await lock.release();
    expect(await pending).toEqual({
      content:
        "Error: create failed for /memories/b.md: connection lost. The change may still be applied; view /memories/b.md to check.",
      isError: true,
    });
    await own.server.start();
    // A read cut off the same way is only a failure: nothing it did could have changed anything.
    expect((await run(store, { command: "view", path: "/memories/a.md" })).isError).toBe(false);
  });
});
