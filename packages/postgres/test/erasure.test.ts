import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { bytes, QueryCounter, TestPostgres } from "./helpers.js";

let pg: TestPostgres;

beforeAll(async () => {
  pg = await TestPostgres.start();
});
afterAll(() => pg?.stop());

describe("PostgresStore erasure", () => {
  it("tenants() pages through 10,000 tenants with one statement per page", { timeout: 300_000 }, async () => {
    const counter = new QueryCounter();
    const table = pg.freshTable();
    const store = new PostgresStore({ pool: counter.attach(pg.pool({ max: 8 })), table });
    const ids = Array.from({ length: 10_000 }, (_, i) => `t${String(i).padStart(5, "0")}`);
    for (let i = 0; i < ids.length; i += 200) {
      await Promise.all(
        ids
          .slice(i, i + 200)
          .map((id) => store.scope(id).write("/memories/x.md", bytes(id), { ifAbsent: true })),
      );
    }
    // Nested tenants and ids that sort between a tenant and its nested ones must not disturb the walk.
    await store.scope("t00001").scope("inner").write("/memories/y.md", bytes("y"), { ifAbsent: true });
    await store.scope("t00001.b").write("/memories/y.md", bytes("yy"), { ifAbsent: true });
    const expected = [...ids.slice(0, 2), "t00001.b", ...ids.slice(2)];
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    while (true) {
      let page: Awaited<ReturnType<PostgresStore["tenants"]>> | undefined;
      const statements = await counter.during(async () => {
        page = await store.tenants(after === undefined ? { limit: 1000 } : { after, limit: 1000 });
      });
      expect(statements).toBe(1);
      for (const t of page!.tenants) {
        expect(t).toMatchObject({ id: t.id, files: 1, bytes: t.id === "t00001.b" ? 2 : 6 });
        seen.push(t.id);
      }
      pages += 1;
      after = page!.next;
      if (after === undefined) break;
    }
    expect(pages).toBe(11);
    expect(seen).toEqual(expected);
    expect((await store.scope("t00001").tenants()).tenants).toMatchObject([
      { id: "inner", files: 1, bytes: 1 },
    ]);
  });

  it("purge() is refused on the unscoped store and removes every row of a tenant in one transaction", async () => {
    const table = pg.freshTable();
    const store = new PostgresStore({ pool: pg.pool(), table });
    await expect(store.purge()).rejects.toThrow(TypeError);
    await store.scope("gone").write("/memories/a.md", bytes("gonemarker"), { ifAbsent: true });
    await store.scope("gone").scope("deep").write("/memories/b.md", bytes("gonemarker2"), { ifAbsent: true });
    await store.scope("kept").write("/memories/a.md", bytes("kept"), { ifAbsent: true });
    expect(await store.scope("gone").purge({ dryRun: true })).toEqual({ files: 2, bytes: 21 });
    expect(await store.scope("gone").purge()).toEqual({ files: 2, bytes: 21 });
    const rows = (await pg.sql(`SELECT tenant, path FROM ${table} ORDER BY tenant, path`)).rows;
    expect(rows.filter((r) => String(r.tenant).includes("gone"))).toEqual([]);
    expect(rows.filter((r) => r.tenant === "/kept").map((r) => r.path)).toEqual([
      "/memories",
      "/memories/a.md",
    ]);
    expect(await store.scope("gone").purge()).toEqual({ files: 0, bytes: 0 });
  });
});
