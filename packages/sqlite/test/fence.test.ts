import { readFileSync } from "node:fs";
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
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../src/index.js";
import { freshDiskPath } from "./helpers.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
afterAll(stopFixtures);

const raw = <T>(path: string, use: (db: Database.Database) => T): T => {
  const db = new Database(path);
  try {
    return use(db);
  } finally {
    db.close();
  }
};

describe("the erasure fence in the database", () => {
  it(
    "refuses every write of another process to the fenced tenant and its nested tenants until the purge is re-run",
    { timeout: 120_000 },
    async () => {
      const path = freshDiskPath();
      const store = new SqliteStore({ path });
      const scopes = { t: store.scope("t"), "t/n": store.scope("t").scope("n"), u: store.scope("u") };
      for (const scope of Object.values(scopes)) {
        await scope.write("/memories/a.md", new TextEncoder().encode("alpha\n"), { ifAbsent: true });
      }
      // What a purge that crashed between its two transactions leaves in the file: the fence, up.
      raw(path, (db) => db.prepare("INSERT INTO mem_fences (tenant) VALUES ('t')").run());
      const refused = async (tenant: string) =>
        fenceCommandResults(
          await outputOf(startFixture(packageDir, "fence-writer.ts", [path, tenant, "commands"])),
        );
      expect(await refused("t")).toEqual(allFenced());
      expect(await refused("t/n")).toEqual(allFenced());
      const other = await refused("u");
      expect(other.map((r) => r.isError)).toEqual([false, false, false, false, true]);
      // Nothing changed in the fenced tenants.
      for (const scope of [scopes.t, scopes["t/n"]]) {
        const files = await scope.files();
        expect(files.map((f) => f.path)).toEqual(["/memories/a.md"]);
        expect(new TextDecoder().decode((await scope.read("/memories/a.md"))?.data)).toBe("alpha\n");
      }
      // Running the purge again erases the tenant and ends the fence: writable again, from any process.
      expect(await scopes.t.purge()).toEqual({ files: 2, bytes: 12 });
      expect(raw(path, (db) => db.prepare("SELECT count(*) FROM mem_fences").pluck().get())).toBe(0);
      expect((await refused("t"))[0]).toEqual({
        isError: false,
        content: "File created successfully at: /memories/new.md",
      });
      await store.close();
    },
  );

  it(
    "leaves no file written before or during a purge when another process writes in a loop meanwhile",
    { timeout: 180_000 },
    async () => {
      const path = freshDiskPath();
      const store = new SqliteStore({ path });
      const tenant = store.scope("racing");
      const writer = startFixture(packageDir, "fence-writer.ts", [path, "racing", "loop", "8"]);
      const { summary, started, purged } = await raceFenceWriter(writer, () => tenant.purge());
      expect(summary.acked.filter(([, at]) => at < started).length).toBeGreaterThanOrEqual(1);
      expect(purged.files).toBeGreaterThanOrEqual(20);
      // What may be left: writes acknowledged after the purge began (they landed after it), nothing else.
      const left = raw(path, (db) =>
        db
          .prepare("SELECT content FROM mem_files WHERE tenant = 'racing' AND kind = 'f'")
          .pluck()
          .all()
          .flatMap((content) => fenceMarkers((content as Buffer).toString("latin1"))),
      );
      expect(fenceViolations(summary, started, left)).toEqual([]);
      // And in the raw bytes of the file, once the write-ahead log is checkpointed into it.
      await store.close();
      raw(path, (db) => db.pragma("wal_checkpoint(TRUNCATE)"));
      expect(fenceViolations(summary, started, fenceMarkers(readFileSync(path).toString("latin1")))).toEqual(
        [],
      );
      expect(await exitOf(writer)).toMatchObject({ code: 0 });
    },
  );
});
