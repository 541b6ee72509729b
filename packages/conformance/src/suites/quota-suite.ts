import { type ExecuteOptions, executeCommand, type MemoryStore, type ToolResult } from "@mem/core";
import * as x from "../golden/expected.js";
import { liveUsage, snapshotStore } from "../store-tree.js";
import type { Harness } from "./harness.js";

const run = (
  store: MemoryStore,
  input: Record<string, unknown>,
  options: ExecuteOptions,
): Promise<ToolResult> => executeCommand(store, input, options);

const create = (path: string, text: string) => ({ command: "create", path, file_text: text });
const ok = (content: string): ToolResult => ({ content, isError: false });
const err = (content: string): ToolResult => ({ content, isError: true });

const seed = async (store: MemoryStore, files: Record<string, string>): Promise<void> => {
  for (const [path, text] of Object.entries(files)) {
    const result = await executeCommand(store, create(path, text));
    if (result.isError) throw new Error(`seeding ${path}: ${result.content}`);
  }
};

export function quotaSuite<S extends MemoryStore>(harness: Harness<S>, exact = false): void {
  const { describe, it, expect } = harness;
  describe("quotas (SPEC §7)", () => {
    if (exact) {
      it(
        "holds exactly under concurrency: 150 creates under maxFiles 5 make 5 files, maxTotalBytes likewise",
        () =>
          harness.withStore(async (store) => {
            expect(typeof store.writeWithinQuota).toBe("function");
            const { peer, release } = await harness.openPeer(store);
            try {
              // Half the writers go through another instance: the quota holds across instances too.
              const both = (i: number) => (i % 2 === 0 ? store : peer);
              const files = await Promise.all(
                Array.from({ length: 150 }, (_, i) =>
                  run(both(i), create(`/memories/f/${i}.md`, "x"), { maxFiles: 5 }),
                ),
              );
              expect(files.filter((result) => !result.isError)).toHaveLength(5);
              files.forEach((result, i) => {
                if (result.isError) expect(result).toEqual(err(x.tooManyFiles(`/memories/f/${i}.md`, 5, 5)));
              });
              expect((await store.list("/memories/f", 1))?.entries).toHaveLength(5);
              if (store.usage) expect(liveUsage(await store.usage())).toEqual({ files: 5, bytes: 5 });

              await run(store, { command: "delete", path: "/memories/f" }, {});
              const bytes = await Promise.all(
                Array.from({ length: 150 }, (_, i) =>
                  run(both(i), create(`/memories/b/${i}.md`, "0123456789"), { maxTotalBytes: 55 }),
                ),
              );
              expect(bytes.filter((result) => !result.isError)).toHaveLength(5);
              expect((await store.list("/memories/b", 1))?.size).toBe(50);

              // Growing edits: 30 inserts of 5 bytes into the files, room for one more.
              const made = bytes.flatMap((result, i) => (result.isError ? [] : [`/memories/b/${i}.md`]));
              const edits = await Promise.all(
                Array.from({ length: 30 }, (_, i) =>
                  run(
                    both(i),
                    { command: "insert", path: made[i % made.length], insert_line: 0, insert_text: "abcd" },
                    { maxTotalBytes: 55 },
                  ),
                ),
              );
              expect(edits.filter((result) => !result.isError)).toHaveLength(1);
              expect((await store.list("/memories/b", 1))?.size).toBe(55);
            } finally {
              await release();
            }
          }),
        harness.timeout,
      );
    }
    it(
      "refuses a create beyond maxFiles with the exact message, and writes nothing",
      () =>
        harness.withStore(async (store) => {
          await seed(store, { "/memories/a.md": "a\n", "/memories/d/b.md": "b\n" });
          const limits = { maxFiles: 2 };
          expect(await run(store, create("/memories/c.md", "c\n"), limits)).toEqual(
            err(x.tooManyFiles("/memories/c.md", 2, 2)),
          );
          expect(await store.stat("/memories/c.md")).toBeNull();
          // Edits, deletes and renames are never refused by maxFiles.
          expect(
            await run(
              store,
              { command: "insert", path: "/memories/a.md", insert_line: 1, insert_text: "more" },
              limits,
            ),
          ).toEqual(ok(x.inserted("/memories/a.md")));
          expect(
            await run(store, { command: "rename", old_path: "/memories/d", new_path: "/memories/e" }, limits),
          ).toEqual(ok(x.renamed("/memories/d", "/memories/e")));
          expect(await run(store, { command: "delete", path: "/memories/e/b.md" }, limits)).toEqual(
            ok(x.deleted("/memories/e/b.md")),
          );
          expect(await run(store, create("/memories/c.md", "c\n"), limits)).toEqual(
            ok(x.created("/memories/c.md")),
          );
        }),
      harness.timeout,
    );

    it(
      "counts hidden files in a store's usage",
      () =>
        harness.withStore(async (store) => {
          await seed(store, {
            "/memories/.hidden": "12345",
            "/memories/node_modules/x": "1",
            "/memories/a": "12",
          });
          if (!store.usage) return; // The listing fallback cannot see hidden files; stores with usage() must.
          // A wrapper that keeps history may add `historyBytes`; the quota counts are files and bytes.
          const { files, bytes } = await store.usage();
          expect({ files, bytes }).toEqual({ files: 3, bytes: 8 });
          expect(await run(store, create("/memories/b", "x"), { maxFiles: 3 })).toEqual(
            err(x.tooManyFiles("/memories/b", 3, 3)),
          );
          expect(await run(store, create("/memories/b", "xxx"), { maxTotalBytes: 10 })).toEqual(
            err(x.tooManyBytes("/memories/b", 11, 10)),
          );
        }),
      harness.timeout,
    );

    it(
      "refuses creates and growing edits beyond maxTotalBytes with the exact message, and writes nothing",
      () =>
        harness.withStore(async (store) => {
          await seed(store, { "/memories/a.md": "0123456789\n", "/memories/b.md": "abc\n" });
          const limits = { maxTotalBytes: 20 };
          const before = await snapshotStore(store, ["/memories/c.md"]);
          expect(await run(store, create("/memories/c.md", "123456"), limits)).toEqual(
            err(x.tooManyBytes("/memories/c.md", 21, 20)),
          );
          expect(
            await run(
              store,
              { command: "str_replace", path: "/memories/b.md", old_str: "abc", new_str: "abcdefghi" },
              limits,
            ),
          ).toEqual(err(x.tooManyBytes("/memories/b.md", 21, 20)));
          expect(
            await run(
              store,
              { command: "insert", path: "/memories/a.md", insert_line: 0, insert_text: "xxxxx" },
              limits,
            ),
          ).toEqual(err(x.tooManyBytes("/memories/a.md", 21, 20)));
          expect(await snapshotStore(store, ["/memories/c.md"])).toEqual(before);
          // Exactly at the limit fits.
          expect(await run(store, create("/memories/c.md", "12345"), limits)).toEqual(
            ok(x.created("/memories/c.md")),
          );
          // Over the limit (it was lowered), an edit that does not grow its file still works: it is how
          // the model gets back under the limit.
          const lower = { maxTotalBytes: 10 };
          expect(
            (
              await run(
                store,
                { command: "str_replace", path: "/memories/a.md", old_str: "0123456789", new_str: "0" },
                lower,
              )
            ).isError,
          ).toBe(false);
          expect(
            (
              await run(
                store,
                { command: "str_replace", path: "/memories/b.md", old_str: "abc", new_str: "xyz" },
                lower,
              )
            ).isError,
          ).toBe(false);
          expect(
            await run(
              store,
              { command: "str_replace", path: "/memories/b.md", old_str: "xyz", new_str: "xyz!" },
              lower,
            ),
          ).toEqual(err(x.tooManyBytes("/memories/b.md", 12, 10)));
          expect(await run(store, { command: "delete", path: "/memories/c.md" }, lower)).toEqual(
            ok(x.deleted("/memories/c.md")),
          );
        }),
      harness.timeout,
    );

    it(
      "checks quotas after maxFileBytes and after the command's own checks",
      () =>
        harness.withStore(async (store) => {
          await seed(store, { "/memories/f": "abc\n" });
          const full = { maxFiles: 1, maxTotalBytes: 4, maxFileBytes: 8 };
          expect(await run(store, create("/memories/big", "123456789"), full)).toEqual(
            err(x.tooLarge("/memories/big", 9, 8)),
          );
          expect(await run(store, create("/memories/f", "x"), full)).toEqual(
            err(x.alreadyExists("/memories/f")),
          );
          expect(await run(store, create("/memories/f/g", "x"), full)).toEqual(
            err(x.createUnderFile("/memories/f/g", "/memories/f")),
          );
          expect(
            await run(
              store,
              { command: "str_replace", path: "/memories/nope", old_str: "a", new_str: "bb" },
              full,
            ),
          ).toEqual(err(x.replaceMissing("/memories/nope")));
          expect(
            await run(
              store,
              { command: "str_replace", path: "/memories/f", old_str: "zz", new_str: "bbbbb" },
              full,
            ),
          ).toEqual(err(x.noOccurrence("zz", "/memories/f")));
          expect(
            await run(
              store,
              { command: "insert", path: "/memories/f", insert_line: 7, insert_text: "x" },
              full,
            ),
          ).toEqual(err(x.insertLineOutOfRange(7, 1)));
          expect(
            await run(
              store,
              { command: "insert", path: "/memories/f", insert_line: 1, insert_text: "123456" },
              full,
            ),
          ).toEqual(err(x.tooLarge("/memories/f", 11, 8)));
          // With both limits reached, the file count is reported first.
          expect(await run(store, create("/memories/g", "x"), full)).toEqual(
            err(x.tooManyFiles("/memories/g", 1, 1)),
          );
          expect(
            await run(store, { command: "rename", old_path: "/memories/f", new_path: "/memories/h/f" }, full),
          ).toEqual(ok(x.renamed("/memories/f", "/memories/h/f")));
        }),
      harness.timeout,
    );

    it(
      "is overshot under concurrency by at most the writes in flight together",
      () =>
        harness.withStore(async (store) => {
          const maxFiles = 10;
          const inFlight = 3;
          let next = 0;
          // Waves of `inFlight` concurrent creates: each wave may overshoot by at most inFlight - 1.
          for (let wave = 0; wave < 10; wave++) {
            await Promise.all(
              Array.from({ length: inFlight }, () => {
                next += 1;
                return run(store, create(`/memories/w/${next}.md`, "x"), { maxFiles });
              }),
            );
          }
          const files = (await store.list("/memories/w", 1))?.entries.length ?? 0;
          expect(files).toBeGreaterThanOrEqual(maxFiles);
          expect(files).toBeLessThanOrEqual(maxFiles + inFlight - 1);
          expect((await run(store, create("/memories/one-more.md", "x"), { maxFiles })).isError).toBe(true);

          const maxTotalBytes = 100;
          const bytesStore = store;
          await run(bytesStore, { command: "delete", path: "/memories/w" }, {});
          for (let wave = 0; wave < 10; wave++) {
            await Promise.all(
              Array.from({ length: inFlight }, () => {
                next += 1;
                return run(bytesStore, create(`/memories/b/${next}.md`, "0123456789"), { maxTotalBytes });
              }),
            );
          }
          const listing = await store.list("/memories/b", 1);
          expect(listing?.size ?? 0).toBeGreaterThanOrEqual(maxTotalBytes - 10 + 1);
          expect(listing?.size ?? 0).toBeLessThanOrEqual(maxTotalBytes + 10 * (inFlight - 1));
        }),
      harness.timeout,
    );
  });
}
