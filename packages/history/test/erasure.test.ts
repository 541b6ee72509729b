import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand, InMemoryStore, type MemoryStore, NotFoundError } from "@mem/core";
import { FsStore } from "@mem/fs";
import { afterAll, describe, expect, it } from "vitest";
import { HistoryStore, RedactedVersionError } from "../src/index.js";

const text = (data: Uint8Array | null | undefined) => (data ? new TextDecoder().decode(data) : null);
const run = async (store: MemoryStore, input: object) => {
  const result = await executeCommand(store, input, { actor: "alice@example.com" });
  if (result.isError) throw new Error(String(result.content));
};
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Every file under `root` with its bytes. */
const rawFiles = (root: string): Map<string, string> => {
  const out = new Map<string, string>();
  for (const name of readdirSync(root, { recursive: true, encoding: "utf8" })) {
    const path = join(root, name);
    if (lstatSync(path).isFile()) out.set(name, readFileSync(path, "latin1"));
  }
  return out;
};

describe("HistoryStore: redact, forget, purge", () => {
  it("redact removes one version's content and keeps a tombstone: when, by whom; reads and restores refuse it", async () => {
    let now = Date.UTC(2026, 10, 24);
    const store = new HistoryStore(new InMemoryStore(), { clock: () => now });
    const path = "/memories/notes.md";
    await run(store, { command: "create", path, file_text: "secretmarker one\n" });
    now += 1000;
    await run(store, { command: "str_replace", path, old_str: "one", new_str: "two" });
    now += 1000;
    await run(store, { command: "str_replace", path, old_str: "two", new_str: "three" });
    const [newer, older] = await store.versions(path);
    now += 1000;
    await store.redact(path, older!.id, { by: "operator" });
    const after = await store.versions(path);
    expect(after).toHaveLength(2);
    expect(after[1]).toEqual({ ...older, size: 0, redacted: { time: now, by: "operator" } });
    expect(after[0]).toEqual(newer);
    await expect(store.readVersion(path, older!.id)).rejects.toThrow(RedactedVersionError);
    await expect(store.restore(path, older!.id)).rejects.toThrow(/was redacted/);
    expect(text(await store.readVersion(path, newer!.id))).toBe("secretmarker two\n");
    // Again: nothing changes. Unknown versions and bad actors are refused.
    await store.redact(path, older!.id);
    expect((await store.versions(path))[1]?.redacted).toEqual({ time: now, by: "operator" });
    await expect(store.redact(path, "000000000-0000-00000000")).rejects.toThrow(NotFoundError);
    await expect(store.redact(path, newer!.id, { by: "" })).rejects.toThrow(TypeError);
    const raw = await store.inner.files?.();
    const contents = await Promise.all(
      (raw ?? []).map(async (f) => text((await store.inner.read(f.path))?.data)),
    );
    expect(contents.filter((c) => c?.includes("secretmarker one"))).toEqual([]);
  });

  it("forget removes every version of a path and leaves the file and other paths alone", async () => {
    const store = new HistoryStore(new InMemoryStore());
    await run(store, { command: "create", path: "/memories/a.md", file_text: "a1\n" });
    await run(store, { command: "str_replace", path: "/memories/a.md", old_str: "a1", new_str: "a2" });
    await run(store, { command: "str_replace", path: "/memories/a.md", old_str: "a2", new_str: "a3" });
    await run(store, { command: "create", path: "/memories/b.md", file_text: "b1\n" });
    await run(store, { command: "delete", path: "/memories/b.md" });
    expect(await store.forget("/memories/a.md")).toEqual({ versions: 2, bytes: 6 });
    expect(await store.versions("/memories/a.md")).toEqual([]);
    expect(await store.paths()).toEqual(["/memories/b.md"]);
    expect(text((await store.read("/memories/a.md"))?.data)).toBe("a3\n");
    expect(await store.forget("/memories/a.md")).toEqual({ versions: 0, bytes: 0 });
  });

  it("purge through the wrapper erases a tenant's files and versions on disk and counts the versions", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mem-history-erase-"));
    dirs.push(dir);
    const store = new HistoryStore(new FsStore({ root: dir }));
    for (const tenant of ["gonetenant", "kepttenant"]) {
      const scoped = store.scope!(tenant);
      await run(scoped, { command: "create", path: "/memories/n.md", file_text: `${tenant}-v1\n` });
      await run(scoped, { command: "str_replace", path: "/memories/n.md", old_str: "v1", new_str: "v2" });
      await run(scoped, { command: "delete", path: "/memories/n.md" });
      await run(scoped, { command: "create", path: "/memories/.h", file_text: `${tenant}-hidden\n` });
    }
    const keptBefore = [...rawFiles(dir)].filter(([p]) => p.includes("kepttenant"));
    expect((await store.tenants!()).tenants.map((t) => t.id)).toEqual(["gonetenant", "kepttenant"]);
    const gone = store.scope?.("gonetenant");
    if (!gone?.purge) throw new Error("the scope has no purge()");
    const result = await gone.purge();
    expect(result).toEqual({ files: 1, bytes: "gonetenant-hidden\n".length, versions: 2 });
    const after = rawFiles(dir);
    expect([...after].filter(([p, v]) => p.includes("gonetenant") || v.includes("gonetenant"))).toEqual([]);
    expect([...after].filter(([p]) => p.includes("kepttenant"))).toEqual(keptBefore);
    await expect(store.purge!()).rejects.toThrow(TypeError);
  });
});
