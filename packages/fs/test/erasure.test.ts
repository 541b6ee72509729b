import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { FsStore } from "@mem/fs";
import { describe, expect, it } from "vitest";
import { tempDir } from "./helpers/files.js";

const everything = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" }).map((p) => join(dir, p));

describe("FsStore erasure", () => {
  it("a purge interrupted after its rename (a grave left half removed) completes when run again", async () => {
    const store = new FsStore({ root: tempDir() });
    const alice = store.scope("alice");
    for (let i = 0; i < 20; i++) {
      await executeCommand(alice, {
        command: "create",
        path: `/memories/d${i % 3}/f${i}.md`,
        file_text: `alicemark${i}\n`,
      });
    }
    await executeCommand(store.scope("bob"), {
      command: "create",
      path: "/memories/b.md",
      file_text: "bob\n",
    });
    const tenantsDir = join(store.root, ".~mem-tenants");
    // The state a purge killed midway leaves: the tenant renamed to its grave, part of the grave removed.
    const grave = join(tenantsDir, ".~mem-purge-alice~4242-abc");
    renameSync(join(tenantsDir, "alice"), grave);
    rmSync(join(grave, "d0"), { recursive: true });
    // A later write of the scope makes a new directory beside the grave.
    await executeCommand(alice, {
      command: "create",
      path: "/memories/late.md",
      file_text: "alicemark-late\n",
    });
    const result = await alice.purge();
    expect(result.files).toBe(14);
    const left = everything(store.root).filter(
      (p) => p.includes("alice") || (p.endsWith(".md") && !p.includes("bob")),
    );
    expect(left).toEqual([]);
    expect(readdirSync(tenantsDir)).toEqual(["bob"]);
    expect((await store.tenants()).tenants.map((t) => t.id)).toEqual(["bob"]);
  });

  it("a purge killed between its count and its rename leaves everything, and a rerun removes it", async () => {
    const store = new FsStore({ root: tempDir() });
    const carol = store.scope("carol");
    await executeCommand(carol, { command: "create", path: "/memories/c.md", file_text: "carolmark\n" });
    expect(await carol.purge({ dryRun: true })).toEqual({ files: 1, bytes: 10 });
    expect(everything(store.root).some((p) => p.includes("carol"))).toBe(true);
    expect(await carol.purge()).toEqual({ files: 1, bytes: 10 });
    expect(everything(store.root).filter((p) => p.includes("carol"))).toEqual([]);
  });

  // 20,000 directories and files made and walked: an explicit budget, so that a busy machine slows it
  // down without failing it (it asserts counts, never speed).
  it(
    "tenants() pages through 10,000 tenants in byte order, walking only the page's tenants",
    { timeout: 300_000 },
    async () => {
      const root = tempDir();
      const tenantsDir = join(root, ".~mem-tenants");
      mkdirSync(tenantsDir);
      const ids = Array.from({ length: 10_000 }, (_, i) => `t${i.toString(36)}`);
      for (const id of ids) {
        mkdirSync(join(tenantsDir, id));
        writeFileSync(join(tenantsDir, id, "x.md"), id);
      }
      // An empty tenant directory (a scope made but never written) is not a tenant that holds anything.
      mkdirSync(join(tenantsDir, "empty"));
      const store = new FsStore({ root });
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      do {
        const page = await store.tenants(after === undefined ? { limit: 1000 } : { after, limit: 1000 });
        for (const t of page.tenants) {
          expect(t).toMatchObject({ files: 1, bytes: t.id.length });
          seen.push(t.id);
        }
        after = page.next;
        pages += 1;
      } while (after !== undefined);
      expect(pages).toBe(10);
      expect(seen).toEqual([...ids].sort());
    },
  );
});
