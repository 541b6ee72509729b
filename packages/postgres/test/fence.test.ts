import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  allFenced,
  exitOf,
  fenceCommandResults,
  fenceMarkers,
  fenceViolations,
  outputOf,
  raceFenceWriter,
  startFixture,
  stopFixtures,
} from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { TestPostgres } from "./helpers.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
let db: TestPostgres;
beforeAll(async () => {
  db = await TestPostgres.start();
});
afterAll(() => db?.stop());
afterAll(stopFixtures);

const writer = (table: string, tenant: string, ...mode: string[]) => {
  const child = startFixture(packageDir, "fence-writer.ts", [table, tenant, ...mode]);
  child.stdin?.write(`${db.server.url}\n`);
  return child;
};

const results = async (table: string, tenant: string) => {
  const child = writer(table, tenant, "commands");
  child.stdin?.end();
  return fenceCommandResults(await outputOf(child));
};

describe("the erasure fence in the table", () => {
  it(
    "refuses every write of another process to the fenced tenant and its nested tenants until the purge is re-run",
    { timeout: 120_000 },
    async () => {
      const table = db.freshTable();
      const store = new PostgresStore({ pool: db.pool(), table });
      const scopes = { t: store.scope("t"), "t/n": store.scope("t").scope("n"), u: store.scope("u") };
      for (const scope of Object.values(scopes)) {
        await scope.write("/memories/a.md", new TextEncoder().encode("alpha\n"), { ifAbsent: true });
      }
      const rows = async () =>
        (await db.sql(`SELECT tenant, path, kind, content FROM ${table} ORDER BY 1, 2`)).rows;
      // What a purge interrupted after its first statement leaves in the table: the fence, up.
      await db.sql(`INSERT INTO ${table} (tenant, path, kind) VALUES ('/t', '', 'e')`);
      const before = await rows();
      expect(await results(table, "t")).toEqual(allFenced());
      expect(await results(table, "t/n")).toEqual(allFenced());
      expect((await results(table, "u")).map((r) => r.isError)).toEqual([false, false, false, false, true]);
      // Nothing of the fenced tenants changed.
      expect((await rows()).filter((r) => r.tenant !== "/u")).toEqual(
        before.filter((r) => r.tenant !== "/u"),
      );
      // Running the purge again erases the tenant and removes the fence: writable again, from any process.
      expect(await scopes.t.purge()).toEqual({ files: 2, bytes: 12 });
      expect((await db.sql(`SELECT count(*)::int AS n FROM ${table} WHERE kind = 'e'`)).rows[0]?.n).toBe(0);
      expect((await results(table, "t"))[0]).toEqual({
        isError: false,
        content: "File created successfully at: /memories/new.md",
      });
    },
  );

  it(
    "leaves no file written before or during a purge when another process writes in a loop meanwhile",
    { timeout: 180_000 },
    async () => {
      const table = db.freshTable();
      const store = new PostgresStore({ pool: db.pool(), table });
      const child = writer(table, "racing", "loop", "8");
      const { summary, started, purged } = await raceFenceWriter(child, () => store.scope("racing").purge());
      expect(summary.acked.filter(([, at]) => at < started).length).toBeGreaterThanOrEqual(1);
      expect(purged.files).toBeGreaterThanOrEqual(20);
      const left = (
        await db.sql(`SELECT content FROM ${table} WHERE tenant = '/racing' AND kind = 'f'`)
      ).rows.flatMap((r) => fenceMarkers((r.content as Buffer).toString("latin1")));
      expect(fenceViolations(summary, started, left)).toEqual([]);
      expect(await exitOf(child)).toMatchObject({ code: 0 });
    },
  );
});
