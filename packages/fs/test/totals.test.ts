import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { describe, expect, it } from "vitest";
import { FsStore } from "../src/index.js";
import { bytes, tempDir } from "./helpers/files.js";

const TOTALS = ".~mem-usage";

const seed = async (store: FsStore) => {
  await store.write("/memories/a.md", bytes("aaaa"), { ifAbsent: true });
  await store.write("/memories/d/b.md", bytes("bb"), { ifAbsent: true });
  await store.write("/memories/d/.hidden", bytes("h"), { ifAbsent: true });
};

/** A file put beside the store's back: only a walk can see it. */
const sneak = (root: string, name: string, content: string) => writeFileSync(join(root, name), content);

describe("kept usage totals", () => {
  it("keeps no totals file in a root nobody asks the usage of", async () => {
    const root = tempDir();
    await seed(new FsStore({ root }));
    expect(existsSync(join(root, TOTALS))).toBe(false);
  });

  it("answers usage() from the totals kept by every change once asked, without walking", async () => {
    const root = tempDir();
    const store = new FsStore({ root });
    await seed(store);
    expect(await store.usage()).toEqual({ files: 3, bytes: 7 });
    // The first change after the question counts the tree and keeps the totals from then on.
    await store.write("/memories/c.md", bytes("ccc"), { ifAbsent: true });
    const a = await store.read("/memories/a.md");
    await store.write("/memories/a.md", bytes("a"), { ifVersion: a!.version });
    await store.update("/memories/c.md", () => bytes("cccccc"));
    await store.rename("/memories/d", "/memories/e");
    expect(await store.usage()).toEqual({ files: 4, bytes: 10 });
    await store.delete("/memories/e");
    expect(await store.usage()).toEqual({ files: 2, bytes: 7 });
    // A file placed by another program is not seen: usage() read the totals, it did not walk.
    sneak(root, "foreign.md", "12345");
    expect(await store.usage()).toEqual({ files: 2, bytes: 7 });
    expect(JSON.parse(readFileSync(join(root, TOTALS), "utf8"))).toMatchObject({ files: 2, bytes: 7 });
  });

  it("counts again when the totals file is missing, unreadable or of another format", async () => {
    const root = tempDir();
    const store = new FsStore({ root });
    await seed(store);
    await store.usage();
    await store.write("/memories/x.md", bytes("x"), { ifAbsent: true });
    sneak(root, "foreign.md", "12345");
    for (const content of ["not json", '{"format":"mem-usage/0","files":1,"bytes":1}', "null", "[]"]) {
      writeFileSync(join(root, TOTALS), content);
      expect(await store.usage(), content).toEqual({ files: 5, bytes: 13 });
    }
    // The next change counts under the lock and rewrites a good file.
    await store.delete("/memories/x.md");
    expect(JSON.parse(readFileSync(join(root, TOTALS), "utf8"))).toMatchObject({ files: 4, bytes: 12 });
  });

  it("counts again in a copied root, and after 1,000 changes", async () => {
    const root = tempDir();
    const store = new FsStore({ root });
    await seed(store);
    await store.usage();
    await store.write("/memories/x.md", bytes("x"), { ifAbsent: true });
    const copy = join(tempDir(), "copy");
    cpSync(root, copy, { recursive: true });
    sneak(copy, "foreign.md", "12345");
    // The copy's totals file names the original directory: not trusted there.
    expect(await new FsStore({ root: copy }).usage()).toEqual({ files: 5, bytes: 13 });

    sneak(root, "foreign.md", "12345");
    const recorded = JSON.parse(readFileSync(join(root, TOTALS), "utf8"));
    writeFileSync(join(root, TOTALS), JSON.stringify({ ...recorded, changes: 998 }));
    expect(await store.usage()).toEqual({ files: 4, bytes: 8 });
    await store.write("/memories/y.md", bytes("y"), { ifAbsent: true });
    expect(await store.usage()).toEqual({ files: 5, bytes: 9 });
    // The 1,000th change since the count: the next read counts again and sees the foreign file.
    await store.write("/memories/z.md", bytes("z"), { ifAbsent: true });
    expect(await store.usage()).toEqual({ files: 7, bytes: 15 });
  });

  it("checks quotas against the kept totals, with concurrent edits of a batch", async () => {
    const root = tempDir();
    const store = new FsStore({ root });
    const quota = { maxTotalBytes: 100 };
    for (let i = 0; i < 8; i++)
      await store.write(`/memories/f${i}.md`, bytes("0123456789"), { ifAbsent: true });
    // Eight edits, each growing its file by 5 bytes: only four fit under 100 bytes.
    const reads = await Promise.all(Array.from({ length: 8 }, (_, i) => store.read(`/memories/f${i}.md`)));
    const outcomes = await Promise.allSettled(
      reads.map((file, i) =>
        store.writeWithinQuota(
          `/memories/f${i}.md`,
          bytes("012345678901234"),
          { ifVersion: file!.version },
          quota,
        ),
      ),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(4);
    expect(await store.usage()).toEqual({ files: 8, bytes: 100 });
    const quoted = await executeCommand(
      store,
      { command: "create", path: "/memories/more.md", file_text: "x" },
      { maxTotalBytes: 100 },
    );
    expect(quoted.isError).toBe(true);
    expect(await store.usage()).toEqual({ files: 8, bytes: 100 });
  });

  it("leaves a tenant's totals to the tenant", async () => {
    const root = tempDir();
    const store = new FsStore({ root });
    const tenant = store.scope("t1");
    await tenant.write("/memories/a.md", bytes("abc"), { ifAbsent: true });
    await store.write("/memories/b.md", bytes("z"), { ifAbsent: true });
    expect(await tenant.usage()).toEqual({ files: 1, bytes: 3 });
    expect(await store.usage()).toEqual({ files: 1, bytes: 1 });
    await tenant.write("/memories/c.md", bytes("cc"), { ifAbsent: true });
    expect(await tenant.usage()).toEqual({ files: 2, bytes: 5 });
    expect(await store.usage()).toEqual({ files: 1, bytes: 1 });
  });
});

describe("files() with expiry", () => {
  it("leaves expired files out", async () => {
    const root = tempDir();
    let now = 1_700_000_000_000;
    const store = new FsStore({ root, expireAfterSeconds: 10, clock: () => now });
    await store.write("/memories/old.md", bytes("o"), { ifAbsent: true });
    now += 5_000;
    mkdirSync(join(root, "d"));
    await store.write("/memories/d/new.md", bytes("nn"), { ifAbsent: true });
    now += 6_000;
    expect(await store.files()).toEqual([{ path: "/memories/d/new.md", size: 2 }]);
  });
});
