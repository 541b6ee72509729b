import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { exitOf, startFixture, stopFixtures } from "@mem/testkit";
import { afterAll, beforeAll, expect, it } from "vitest";
import { TestPostgres, textOf } from "./helpers.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
let db: TestPostgres;

beforeAll(async () => {
  db = await TestPostgres.start();
});
afterAll(() => db?.stop());
afterAll(stopFixtures);

/** Runs the insert worker in a fresh Node.js process; resolves with its exit code and stderr. */
const worker = async (args: string[]): Promise<{ code: number | null; stderr: string }> => {
  const child = startFixture(packageDir, "insert-worker.ts", args);
  const exited = exitOf(child);
  child.stdin?.end(db.server.url);
  const { code, stderr } = await exited;
  return { code, stderr };
};

it(
  "loses no edit when 4 processes, each with its own pool, edit one file concurrently",
  { timeout: 180_000 },
  async () => {
    const store = db.store();
    await store.write("/memories/log.txt", new TextEncoder().encode("END\n"), { ifAbsent: true });
    const workers = 4;
    const perWorker = 24;
    const exits = await Promise.all(
      Array.from({ length: workers }, (_, w) =>
        worker([String(store.tenant), "/memories/log.txt", `w${w}`, String(perWorker)]),
      ),
    );
    for (const exit of exits) expect(exit).toEqual({ code: 0, stderr: "" });
    const lines = textOf((await store.read("/memories/log.txt"))!.data).split("\n");
    const expected = Array.from({ length: workers }, (_, w) =>
      Array.from({ length: perWorker }, (_, i) => `w${w}-${i}`),
    ).flat();
    expect(lines.filter((line) => line.startsWith("w")).sort()).toEqual(expected.sort());
    expect(lines.filter((line) => line === "END")).toHaveLength(1);
    expect(await store.usage()).toEqual({ files: 1, bytes: lines.join("\n").length });
  },
);
