import { executeCommand, InMemoryStore } from "@mem/core";
import { withForeignErrors } from "@mem/testkit";
import { describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { FAST_KDF, testKey } from "./helpers.js";

const INDEX = "/memories/.mem-encrypted/unlisted";

// An inner store built against another copy of @mem/core throws errors that are not instances of this
// copy's classes; the wrapper must still tell a lost race from a failure.
describe.each([
  { shape: "look-alike classes", plain: false },
  { shape: "plain objects", plain: true },
])("EncryptedStore over a store whose errors are $shape of another core", ({ plain }) => {
  it("retries lost races of its own bookkeeping and records every hidden file", async () => {
    const inner = new InMemoryStore();
    const codes: string[] = [];
    const foreign = withForeignErrors(inner, { plain, onError: (code) => codes.push(code) });
    const a = new EncryptedStore(foreign, { key: testKey(1) });
    const b = new EncryptedStore(foreign, { key: testKey(1) });
    const paths = Array.from({ length: 12 }, (_, i) => `/memories/.notes/n${i}.md`);
    const results = await Promise.all(
      paths.map((path, i) =>
        executeCommand(i % 2 ? a : b, { command: "create", path, file_text: `note ${i}\n` }),
      ),
    );
    expect(results.filter((r) => r.isError)).toEqual([]);
    // The two instances raced for the key check and the index: the races came back as foreign errors.
    expect(codes).toContain("CONFLICT");
    const index = await a.read(INDEX);
    expect((JSON.parse(new TextDecoder().decode(index!.data)) as string[]).sort()).toEqual([...paths].sort());
  });

  it("starts concurrent instances on one passphrase and key check, whoever wins the race", async () => {
    const codes: string[] = [];
    const foreign = withForeignErrors(new InMemoryStore(), { plain, onError: (code) => codes.push(code) });
    const stores = Array.from(
      { length: 4 },
      () => new EncryptedStore(foreign, { key: { passphrase: "correct horse" }, kdf: FAST_KDF }),
    );
    const created = await Promise.all(
      stores.map((store, i) =>
        executeCommand(store, { command: "create", path: `/memories/f${i}`, file_text: `${i}\n` }),
      ),
    );
    expect(created.filter((r) => r.isError)).toEqual([]);
    expect(codes).toContain("ALREADY_EXISTS");
    // Every instance opens what the others wrote: they all derived the same key from the one salt.
    for (const [i, store] of stores.entries()) {
      const other = (i + 1) % 4;
      expect(new TextDecoder().decode((await store.read(`/memories/f${other}`))?.data)).toBe(`${other}\n`);
    }
  });

  it("answers renames onto existing or missing paths exactly like the plain store", async () => {
    const store = new EncryptedStore(withForeignErrors(new InMemoryStore(), { plain }), { key: testKey(1) });
    const plainStore = new InMemoryStore();
    const commands = [
      { command: "create", path: "/memories/a.md", file_text: "a\n" },
      { command: "create", path: "/memories/b.md", file_text: "b\n" },
      { command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" },
      { command: "rename", old_path: "/memories/missing.md", new_path: "/memories/c.md" },
      { command: "create", path: "/memories/a.md", file_text: "again\n" },
      { command: "rename", old_path: "/memories/a.md", new_path: "/memories/d.md" },
      { command: "view", path: "/memories/d.md" },
    ];
    for (const command of commands) {
      expect(await executeCommand(store, command), JSON.stringify(command)).toEqual(
        await executeCommand(plainStore, command),
      );
    }
  });
});
