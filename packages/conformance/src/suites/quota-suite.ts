import { type ExecuteOptions, executeCommand, type MemoryStore, type ToolResult } from "@mem/core";
import { describe, expect, it } from "vitest";
import { snapshotStore } from "../store-tree.js";
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

export function quotaSuite<S extends MemoryStore>(harness: Harness<S>): void {
  describe("quotas (SPEC §7)", () => {
    it(
      "refuses a create beyond maxFiles with the exact message, and writes nothing",
      () =>
        harness.withStore(async (store) => {
          await seed(store, { "/memories/a.md": "a\n", "/memories/d/b.md": "b\n" });
          const limits = { maxFiles: 2 };
          expect(await run(store, create("/memories/c.md", "c\n"), limits)).toEqual(
            err(
              "Error: Cannot create /memories/c.md: memory already holds 2 files, the limit is 2. Delete or merge files first.",
            ),
          );
          expect(await store.stat("/memories/c.md")).toBeNull();
          // Edits, deletes and renames are never refused by maxFiles.
          expect(
            await run(
              store,
              { command: "insert", path: "/memories/a.md", insert_line: 1, insert_text: "more" },
              limits,
            ),
          ).toEqual(ok("The file /memories/a.md has been edited."));
          expect(
            await run(store, { command: "rename", old_path: "/memories/d", new_path: "/memories/e" }, limits),
          ).toEqual(ok("Successfully renamed /memories/d to /memories/e"));
          expect(await run(store, { command: "delete", path: "/memories/e/b.md" }, limits)).toEqual(
            ok("Successfully deleted /memories/e/b.md"),
          );
          expect(await run(store, create("/memories/c.md", "c\n"), limits)).toEqual(
            ok("File created successfully at: /memories/c.md"),
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
          expect(await store.usage()).toEqual({ files: 3, bytes: 8 });
          expect(await run(store, create("/memories/b", "x"), { maxFiles: 3 })).toEqual(
            err(
              "Error: Cannot create /memories/b: memory already holds 3 files, the limit is 3. Delete or merge files first.",
            ),
          );
          expect(await run(store, create("/memories/b", "xxx"), { maxTotalBytes: 10 })).toEqual(
            err(
              "Error: Cannot write /memories/b: memory would hold 11 bytes, over the limit of 10 bytes. Delete or shorten files first.",
            ),
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
            err(
              "Error: Cannot write /memories/c.md: memory would hold 21 bytes, over the limit of 20 bytes. Delete or shorten files first.",
            ),
          );
          expect(
            await run(
              store,
              { command: "str_replace", path: "/memories/b.md", old_str: "abc", new_str: "abcdefghi" },
              limits,
            ),
          ).toEqual(
            err(
              "Error: Cannot write /memories/b.md: memory would hold 21 bytes, over the limit of 20 bytes. Delete or shorten files first.",
            ),
          );
          expect(
            await run(
              store,
              { command: "insert", path: "/memories/a.md", insert_line: 0, insert_text: "xxxxx" },
              limits,
            ),
          ).toEqual(
            err(
              "Error: Cannot write /memories/a.md: memory would hold 21 bytes, over the limit of 20 bytes. Delete or shorten files first.",
            ),
          );
          expect(await snapshotStore(store, ["/memories/c.md"])).toEqual(before);
          // Exactly at the limit fits.
          expect(await run(store, create("/memories/c.md", "12345"), limits)).toEqual(
            ok("File created successfully at: /memories/c.md"),
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
          ).toEqual(
            err(
              "Error: Cannot write /memories/b.md: memory would hold 12 bytes, over the limit of 10 bytes. Delete or shorten files first.",
            ),
          );
          expect(await run(store, { command: "delete", path: "/memories/c.md" }, lower)).toEqual(
            ok("Successfully deleted /memories/c.md"),
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
            err("Error: File /memories/big would be 9 bytes, which exceeds the limit of 8 bytes"),
          );
          expect(await run(store, create("/memories/f", "x"), full)).toEqual(
            err("Error: File /memories/f already exists"),
          );
          expect(await run(store, create("/memories/f/g", "x"), full)).toEqual(
            err("Error: Cannot create /memories/f/g: /memories/f is a file, not a directory"),
          );
          expect(
            await run(
              store,
              { command: "str_replace", path: "/memories/nope", old_str: "a", new_str: "bb" },
              full,
            ),
          ).toEqual(err("Error: The path /memories/nope does not exist. Please provide a valid path."));
          expect(
            await run(
              store,
              { command: "str_replace", path: "/memories/f", old_str: "zz", new_str: "bbbbb" },
              full,
            ),
          ).toEqual(
            err("No replacement was performed, old_str `zz` did not appear verbatim in /memories/f."),
          );
          expect(
            await run(
              store,
              { command: "insert", path: "/memories/f", insert_line: 7, insert_text: "x" },
              full,
            ),
          ).toEqual(
            err(
              "Error: Invalid `insert_line` parameter: 7. It should be within the range of lines of the file: [0, 1]",
            ),
          );
          expect(
            await run(
              store,
              { command: "insert", path: "/memories/f", insert_line: 1, insert_text: "123456" },
              full,
            ),
          ).toEqual(err("Error: File /memories/f would be 11 bytes, which exceeds the limit of 8 bytes"));
          // With both limits reached, the file count is reported first.
          expect(await run(store, create("/memories/g", "x"), full)).toEqual(
            err(
              "Error: Cannot create /memories/g: memory already holds 1 files, the limit is 1. Delete or merge files first.",
            ),
          );
          expect(
            await run(store, { command: "rename", old_path: "/memories/f", new_path: "/memories/h/f" }, full),
          ).toEqual(ok("Successfully renamed /memories/f to /memories/h/f"));
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
