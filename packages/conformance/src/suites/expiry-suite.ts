import { executeCommand, type MemoryStore, type ToolResult } from "@mem/core";
import * as x from "../golden/expected.js";
import type { Harness } from "./harness.js";

/** A clock the test moves by hand: expiry is tested without waiting. */
export class FakeClock {
  #at: number;
  constructor(at = 1_800_000_000_000) {
    this.#at = at;
  }
  readonly now = (): number => this.#at;
  advance(seconds: number): void {
    this.#at += seconds * 1000;
  }
}

const LIMIT = 60;
const HEADER = x.directoryHeader("/memories");

const run = (store: MemoryStore, input: Record<string, unknown>): Promise<ToolResult> =>
  executeCommand(store, input);
const create = (store: MemoryStore, path: string, text: string) =>
  run(store, { command: "create", path, file_text: text }).then((r) => {
    if (r.isError) throw new Error(`create ${path}: ${r.content}`);
  });
const missing = (path: string): ToolResult => ({
  content: x.viewMissing(path),
  isError: true,
});

export interface ExpiringHarness<S extends MemoryStore> extends Harness<S> {
  /** Runs `body` against a fresh empty store whose files expire after `LIMIT` seconds of `clock`. */
  withExpiringStore(clock: FakeClock, body: (store: S) => Promise<void>): Promise<void>;
}

export function expirySuite<S extends MemoryStore>(harness: ExpiringHarness<S>): void {
  const { describe, it, expect } = harness;
  const withClock = (body: (store: S, clock: FakeClock) => Promise<void>) => () => {
    const clock = new FakeClock();
    return harness.withExpiringStore(clock, (store) => body(store, clock));
  };

  describe("expiry (SPEC §7)", () => {
    it(
      "treats a file not accessed for longer than the limit as missing, at once, with its directory",
      withClock(async (store, clock) => {
        await create(store, "/memories/keep.md", "keep\n");
        await create(store, "/memories/dir/old.md", "old\n");
        await create(store, "/memories/.old-hidden", "h\n");
        clock.advance(30);
        expect((await run(store, { command: "view", path: "/memories/keep.md" })).isError).toBe(false);
        clock.advance(LIMIT); // keep.md: 60 s since its view; the others: 90 s since their create
        expect(await run(store, { command: "view", path: "/memories/keep.md" })).toEqual({
          content: x.fileViewHeader("/memories/keep.md") + "\n     1\tkeep",
          isError: false,
        });
        expect(await run(store, { command: "view", path: "/memories/dir/old.md" })).toEqual(
          missing("/memories/dir/old.md"),
        );
        expect(await run(store, { command: "view", path: "/memories/dir" })).toEqual(
          missing("/memories/dir"),
        );
        expect(await store.stat("/memories/dir")).toBeNull();
        expect(await store.stat("/memories/.old-hidden")).toBeNull();
        expect(await run(store, { command: "view", path: "/memories" })).toEqual({
          content: `${HEADER}\n5B\t/memories\n5B\t/memories/keep.md`,
          isError: false,
        });
        if (store.usage) expect(await store.usage()).toEqual({ files: 1, bytes: 5 });
        expect(
          await run(store, {
            command: "str_replace",
            path: "/memories/dir/old.md",
            old_str: "old",
            new_str: "new",
          }),
        ).toEqual({
          content: x.replaceMissing("/memories/dir/old.md"),
          isError: true,
        });
        expect(
          await run(store, {
            command: "insert",
            path: "/memories/dir/old.md",
            insert_line: 0,
            insert_text: "x",
          }),
        ).toEqual({
          content: "Error: The path /memories/dir/old.md does not exist",
          isError: true,
        });
        expect(await run(store, { command: "delete", path: "/memories/dir" })).toEqual({
          content: "Error: The path /memories/dir does not exist",
          isError: true,
        });
        expect(
          await run(store, {
            command: "rename",
            old_path: "/memories/dir/old.md",
            new_path: "/memories/x.md",
          }),
        ).toEqual({
          content: "Error: The path /memories/dir/old.md does not exist",
          isError: true,
        });
        // The names are free again: a file where the expired directory was, a directory where a file was.
        await create(store, "/memories/dir", "now a file\n");
        await create(store, "/memories/.old-hidden/inside.md", "now a directory\n");
        expect((await run(store, { command: "view", path: "/memories/.old-hidden/inside.md" })).isError).toBe(
          false,
        );
        expect(
          (
            await run(store, {
              command: "rename",
              old_path: "/memories/keep.md",
              new_path: "/memories/dir/x",
            })
          ).content,
        ).toBe("Error: Cannot rename to /memories/dir/x: /memories/dir is a file, not a directory");
      }),
      harness.timeout,
    );

    it(
      "keeps a file accessed exactly at the limit, and expires it one millisecond later",
      withClock(async (store, clock) => {
        await create(store, "/memories/a.md", "a\n");
        clock.advance(LIMIT);
        expect(
          (await run(store, { command: "view", path: "/memories/a.md", view_range: [1, 1] })).isError,
        ).toBe(false);
        clock.advance(LIMIT + 0.001);
        expect(await run(store, { command: "view", path: "/memories/a.md" })).toEqual(
          missing("/memories/a.md"),
        );
      }),
      harness.timeout,
    );

    it(
      "counts creates, views, edits (also without a change) and renames as access, not listings or stat",
      withClock(async (store, clock) => {
        await create(store, "/memories/listed.md", "l\n");
        await create(store, "/memories/edited.md", "e\n");
        await create(store, "/memories/unchanged.md", "u\n");
        await create(store, "/memories/inserted.md", "i\n");
        await create(store, "/memories/d/moved.md", "m\n");
        clock.advance(50);
        await run(store, { command: "view", path: "/memories" });
        await store.stat("/memories/listed.md");
        await store.list("/memories", 2);
        expect(
          (
            await run(store, {
              command: "str_replace",
              path: "/memories/edited.md",
              old_str: "e",
              new_str: "E",
            })
          ).isError,
        ).toBe(false);
        expect(
          (
            await run(store, {
              command: "str_replace",
              path: "/memories/unchanged.md",
              old_str: "zzz",
              new_str: "y",
            })
          ).isError,
        ).toBe(true);
        expect(
          (
            await run(store, {
              command: "insert",
              path: "/memories/inserted.md",
              insert_line: 1,
              insert_text: "j",
            })
          ).isError,
        ).toBe(false);
        expect(
          (await run(store, { command: "rename", old_path: "/memories/d", new_path: "/memories/e" })).isError,
        ).toBe(false);
        clock.advance(50);
        expect(await run(store, { command: "view", path: "/memories/listed.md" })).toEqual(
          missing("/memories/listed.md"),
        );
        for (const path of [
          "/memories/edited.md",
          "/memories/unchanged.md",
          "/memories/inserted.md",
          "/memories/e/moved.md",
        ]) {
          expect((await run(store, { command: "view", path })).isError, path).toBe(false);
        }
      }),
      harness.timeout,
    );

    it(
      "sweep() removes the expired files and reports them",
      withClock(async (store, clock) => {
        await create(store, "/memories/a.md", "aaa\n");
        await create(store, "/memories/d/b.md", "bb\n");
        await create(store, "/memories/.c", "c");
        clock.advance(40);
        await create(store, "/memories/young.md", "y\n");
        clock.advance(30);
        if (!store.sweep) throw new Error("an expiring store needs sweep()");
        const swept = await store.sweep();
        expect([...swept.paths].sort()).toEqual(["/memories/.c", "/memories/a.md", "/memories/d/b.md"]);
        expect(swept.bytes).toBe(8);
        expect(await store.sweep()).toEqual({ paths: [], bytes: 0 });
        if (store.usage) expect(await store.usage()).toEqual({ files: 1, bytes: 2 });
        expect(await run(store, { command: "view", path: "/memories" })).toEqual({
          content: `${HEADER}\n2B\t/memories\n2B\t/memories/young.md`,
          isError: false,
        });
        // Files that behaved as missing before a sweep are never reported twice.
        clock.advance(LIMIT + 1);
        expect(await run(store, { command: "view", path: "/memories/young.md" })).toEqual(
          missing("/memories/young.md"),
        );
        const later = await store.sweep();
        expect(later.paths.filter((p) => p !== "/memories/young.md")).toEqual([]);
        expect(await store.sweep()).toEqual({ paths: [], bytes: 0 });
      }),
      harness.timeout,
    );
  });
}
