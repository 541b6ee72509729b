/**
 * Listing is O(entries shown): with 10,000 files in the table, the plan of every statement a listing
 * runs (including those inside the store's functions, logged by auto_explain) uses an index, never a
 * sequential scan of the table. So do the statements of writes, renames and deletes.
 */
import { executeCommand, ROOT } from "@mem/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { PostgresStore } from "../src/index.js";
import { bytes, TestPostgres } from "./helpers.js";

let db: TestPostgres;

beforeAll(async () => {
  db = await TestPostgres.start();
});
afterAll(() => db?.stop());

it("lists a directory of a 10,000-file table without a sequential scan", { timeout: 120_000 }, async () => {
  const table = db.freshTable();
  const seeding = new PostgresStore({ pool: db.pool({ max: 8 }), table, tenant: "big" });
  // 100 directories of 10 subdirectories of 10 files: a view shows two levels, so far fewer rows than
  // the table holds.
  const paths = Array.from(
    { length: 10_000 },
    (_, i) =>
      `/memories/dir-${String(Math.floor(i / 100)).padStart(3, "0")}/sub-${Math.floor(i / 10) % 10}/file-${i % 10}.md`,
  );
  for (let i = 0; i < paths.length; i += 8) {
    await Promise.all(
      paths.slice(i, i + 8).map((path) => seeding.write(path, bytes("x\n"), { ifAbsent: true })),
    );
  }
  // Another tenant's rows, so that the tenant condition matters too.
  const other = seeding.scope("small");
  for (let i = 0; i < 50; i++) await other.write(`/memories/o/${i}.md`, bytes("y"), { ifAbsent: true });
  await db.sql(`ANALYZE ${table}`);

  const plans: string[] = [];
  const store = new PostgresStore({ pool: db.explainingPool(plans), table, tenant: "big" });
  await store.check();
  for (let round = 0; round < 8; round++) {
    plans.length = 0;
    const listing = await executeCommand(store, { command: "view", path: "/memories/dir-042" });
    expect(listing.content.split("\n")).toHaveLength(112);
    const root = await store.list(ROOT, 2);
    expect(root?.entries).toHaveLength(1_100);
    expect(root?.size).toBe(20_000);
    expect(await store.stat("/memories/dir-007")).toEqual({ kind: "directory" });
    // One plain statement each: the view, the listing and the stat (no function call behind them); the
    // first view of the directory reads it as a file first.
    expect(plans).toHaveLength(round === 0 ? 4 : 3);
    for (const plan of plans) expect(plan).not.toMatch(/Seq Scan/);
    expect(plans.join("\n")).toMatch(new RegExp(`Index (Only )?Scan using ${table}_children`));
  }

  // Writes, renames and deletes run on generic plans (plan_cache_mode, see plans.test.ts): every one of
  // their statements still finds its rows through an index.
  for (let round = 0; round < 8; round++) {
    plans.length = 0;
    const file = `/memories/dir-042/sub-${round}/file-1.md`;
    const inputs = [
      { command: "insert", path: file, insert_line: 1, insert_text: `line ${round}` },
      { command: "str_replace", path: file, old_str: `line ${round}`, new_str: "done" },
      { command: "create", path: `/memories/dir-043/new-${round}.md`, file_text: "n\n" },
      {
        command: "rename",
        old_path: `/memories/dir-043/new-${round}.md`,
        new_path: `/memories/dir-044/m-${round}.md`,
      },
      { command: "delete", path: `/memories/dir-044/m-${round}.md` },
    ];
    for (const input of inputs) expect(await executeCommand(store, input)).toMatchObject({ isError: false });
    expect(plans.length).toBeGreaterThan(inputs.length);
    for (const plan of plans) expect(plan).not.toMatch(/Seq Scan/);
  }

  // With expiry on, listings first look for expired files through the access index, and reclaim them.
  let now = Date.now();
  const expiring = new PostgresStore({
    pool: db.explainingPool(plans),
    table,
    tenant: "big",
    expireAfterSeconds: 3600,
    clock: () => now,
  });
  await expiring.check();
  for (let i = 0; i < 5; i++)
    await expiring.write(`/memories/dir-001/old-${i}.md`, bytes("o"), { ifAbsent: true });
  now += 3_600_001;
  // Everything else was accessed just now: only the five old files have expired.
  await db.sql(
    `UPDATE ${table} SET accessed_at = $1 WHERE tenant = '/big' AND kind = 'f' AND path NOT LIKE '%/old-%'`,
    [now],
  );
  for (let round = 0; round < 8; round++) {
    plans.length = 0;
    const listing = await expiring.list("/memories/dir-001", 2);
    expect(listing?.entries.filter((entry) => entry.path.includes("old-"))).toEqual([]);
    await expiring.stat("/memories/dir-002");
    await expiring.usage();
    for (const plan of plans) expect(plan).not.toMatch(/Seq Scan/);
    expect(plans.join("\n")).toMatch(new RegExp(`Index (Only )?Scan (Backward )?using ${table}_access`));
  }
});
