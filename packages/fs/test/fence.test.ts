import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
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
import { afterAll, describe, expect, it } from "vitest";
import { FsStore } from "../src/index.js";
import { tempDir } from "./helpers/files.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
afterAll(stopFixtures);

/** Every regular file beneath `dir` with its bytes as latin1 text: the raw medium. */
const everything = (dir: string): { path: string; text: string }[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((p) => join(dir, p))
    .filter((p) => statSync(p, { throwIfNoEntry: false })?.isFile())
    .map((path) => ({ path, text: readFileSync(path).toString("latin1") }));

const results = async (root: string, tenant: string) =>
  fenceCommandResults(
    await outputOf(startFixture(packageDir, "fence-writer.ts", [root, tenant, "commands"], "ignore")),
  );

describe("the erasure fence beside the tenant's directory", () => {
  it(
    "refuses every write of another process to the fenced tenant and its nested tenants until the purge is re-run",
    { timeout: 120_000 },
    async () => {
      const root = tempDir();
      const store = new FsStore({ root });
      const scopes = { t: store.scope("t"), "t/n": store.scope("t").scope("n"), u: store.scope("u") };
      for (const scope of Object.values(scopes)) {
        await scope.write("/memories/a.md", new TextEncoder().encode("alpha\n"), { ifAbsent: true });
      }
      const tenants = join(root, ".~mem-tenants");
      const dump = () => everything(join(tenants, "t")).map((f) => f.path + f.text);
      // What a purge stopped before its rename leaves: the fence, up.
      writeFileSync(join(tenants, ".~mem-fence-t"), "");
      const before = dump().sort();
      expect(await results(root, "t")).toEqual(allFenced());
      expect(await results(root, "t/n")).toEqual(allFenced());
      expect((await results(root, "u")).map((r) => r.isError)).toEqual([false, false, false, false, true]);
      expect(dump().sort()).toEqual(before);
      // Running the purge again erases the tenant and removes the fence: writable again.
      expect(await scopes.t.purge()).toEqual({ files: 2, bytes: 12 });
      expect(readdirSync(tenants).sort()).toEqual(["u"]);
      expect((await results(root, "t"))[0]).toEqual({
        isError: false,
        content: "File created successfully at: /memories/new.md",
      });
    },
  );

  it(
    "leaves no file written before or during a purge when another process writes in a loop meanwhile",
    { timeout: 180_000 },
    async () => {
      const root = tempDir();
      const store = new FsStore({ root });
      const child = startFixture(packageDir, "fence-writer.ts", [root, "racing", "loop", "8"]);
      const { summary, started, purged } = await raceFenceWriter(child, () => store.scope("racing").purge());
      expect(summary.acked.filter(([, at]) => at < started).length).toBeGreaterThanOrEqual(1);
      expect(purged.files).toBeGreaterThanOrEqual(20);
      const left = everything(join(root, ".~mem-tenants")).flatMap((f) => fenceMarkers(f.text));
      expect(fenceViolations(summary, started, left)).toEqual([]);
      expect(await exitOf(child)).toMatchObject({ code: 0 });
    },
  );
});
