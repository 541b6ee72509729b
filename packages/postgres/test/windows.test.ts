import { once } from "node:events";
import { createConnection, createServer, type Server } from "node:net";
import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { LATER_WINDOWS, numberedText, viewBoth } from "@mem/testkit";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { TestPostgres } from "./helpers.js";

let postgres: TestPostgres;
let proxy: Server;
/** Bytes the server has sent through the proxy so far. */
let received = 0;

// The store's pool connects through a loopback proxy that counts what the server sends it.
beforeAll(async () => {
  postgres = await TestPostgres.start();
  const target = new URL(postgres.server.url);
  proxy = createServer((socket) => {
    const upstream = createConnection(Number(target.port), target.hostname);
    upstream.on("data", (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.pipe(upstream).pipe(socket);
    socket.on("error", () => upstream.destroy());
    upstream.on("error", () => socket.destroy());
  });
  proxy.listen(0, "127.0.0.1");
  await once(proxy, "listening");
});
afterAll(async () => {
  proxy?.close();
  await postgres?.stop();
});

const proxiedPool = (): pg.Pool => {
  const url = new URL(postgres.server.url);
  const address = proxy.address();
  if (address === null || typeof address === "string") throw new Error("proxy has no port");
  url.port = String(address.port);
  return postgres.pool({ connectionString: url.toString(), max: 1 });
};

const create = (store: MemoryStore, path: string, text: string) =>
  executeCommand(store, { command: "create", path, file_text: text });
const view = (store: MemoryStore, path: string, range: [number, number]) =>
  executeCommand(store, { command: "view", path, view_range: range });

describe("view_range windows from lines kept between views", () => {
  it("gets a row of a few bytes for an unchanged file, and shows what a whole read would", async () => {
    const store = new PostgresStore({ pool: proxiedPool(), table: postgres.freshTable(), tenant: "a" });
    const reference = new InMemoryStore();
    const text = numberedText("a", 12_000); // about 700 KB
    for (const s of [store, reference])
      expect((await create(s, "/memories/big.md", text)).isError).toBe(false);
    const before = received;
    expect(await view(store, "/memories/big.md", [100, 199])).toEqual(
      await view(reference, "/memories/big.md", [100, 199]),
    );
    const afterFirst = received;
    expect(afterFirst - before).toBeGreaterThan(text.length);
    const { got, expected } = await viewBoth(
      LATER_WINDOWS,
      (range) => view(store, "/memories/big.md", range),
      (range) => view(reference, "/memories/big.md", range),
    );
    expect(got).toEqual(expected);
    expect(received - afterFirst).toBeLessThan(2_000);
  });

  it("never mistakes a table made again, with the same versions, for the one whose lines it kept", async () => {
    const table = postgres.freshTable();
    const pool = postgres.pool();
    const store = new PostgresStore({ pool, table, tenant: "c" });
    await create(store, "/memories/big.md", numberedText("before", 3_000));
    expect((await view(store, "/memories/big.md", [2, 2])).content).toContain("before line 2");
    const { version } = (await store.read("/memories/big.md"))!;
    // Dropped with its sequence and made again by a store of another process: versions start over.
    await postgres.sql(`DROP TABLE ${table} CASCADE`);
    await postgres.sql(`DROP SEQUENCE IF EXISTS ${table}_versions`);
    const again = new PostgresStore({ pool: postgres.pool(), table, tenant: "c" });
    await create(again, "/memories/big.md", numberedText("after", 3_000));
    expect((await again.read("/memories/big.md"))?.version).toBe(version);
    expect((await view(store, "/memories/big.md", [2, 2])).content).toContain("after line 2");
  });

  it("reads the file each time with caching off, and refuses a size that is not a byte count", async () => {
    const store = new PostgresStore({
      pool: proxiedPool(),
      table: postgres.freshTable(),
      tenant: "d",
      lineCacheBytes: 0,
    });
    const text = numberedText("z", 3_000);
    await create(store, "/memories/big.md", text);
    expect((await view(store, "/memories/big.md", [2, 2])).content).toContain("z line 2");
    const before = received;
    expect((await view(store, "/memories/big.md", [5, 5])).content).toContain("z line 5");
    expect(received - before).toBeGreaterThan(text.length);
    for (const lineCacheBytes of [-1, 1.5, "1"]) {
      expect(
        () => new PostgresStore({ pool: postgres.pool(), lineCacheBytes } as never),
        String(lineCacheBytes),
      ).toThrow("PostgresStore: `lineCacheBytes` must be a whole number of bytes, 0 or more");
    }
  });
});
