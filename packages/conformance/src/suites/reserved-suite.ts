import { executeCommand, type MemoryStore } from "@mem/core";
import { controlCharacter, created, nameTooLong, outcome, reservedName } from "../golden/expected.js";
import { snapshotStore } from "../store-tree.js";
import { ReservingStore } from "../wrappers.js";
import type { Harness } from "./harness.js";

const RESERVED = "__conformance_reserved__";
const KEEP = "/memories/keep.md";

export function reservedSuite<S extends MemoryStore>(harness: Harness<S>): void {
  const { describe, it, expect } = harness;
  describe("reserved names (through a store that reserves one)", () => {
    it(
      "every command refuses a path that uses a reserved name, echoing the raw path, and touches nothing",
      () =>
        harness.withStore(async (store) => {
          const wrapped = new ReservingStore(store, RESERVED);
          await store.write(KEEP, new TextEncoder().encode("keep\n"), { ifAbsent: true });
          const before = await snapshotStore(store, [KEEP]);
          const r = `/memories/${RESERVED}`;
          const cases: Array<[unknown, string]> = [
            [{ command: "view", path: r }, reservedName(r)],
            [{ command: "view", path: `${r}/` }, reservedName(`${r}/`)],
            [{ command: "create", path: `${r}/a.md`, file_text: "x" }, reservedName(`${r}/a.md`)],
            [
              { command: "create", path: `/memories/a/${RESERVED}`, file_text: "x" },
              reservedName(`/memories/a/${RESERVED}`),
            ],
            [
              { command: "str_replace", path: `${r}/a.md`, old_str: "a", new_str: "b" },
              reservedName(`${r}/a.md`),
            ],
            [
              { command: "insert", path: `${r}/a.md`, insert_line: 0, insert_text: "x" },
              reservedName(`${r}/a.md`),
            ],
            [{ command: "delete", path: r }, reservedName(r)],
            [{ command: "rename", old_path: r, new_path: "/memories/b" }, reservedName(r)],
            [{ command: "rename", old_path: KEEP, new_path: `${r}/keep.md` }, reservedName(`${r}/keep.md`)],
            // The reserved-name check is the last row of the table: earlier rows win.
            [
              { command: "view", path: `/memories/${"n".repeat(256)}/${RESERVED}` },
              nameTooLong(`/memories/${"n".repeat(256)}/${RESERVED}`),
            ],
            [
              { command: "view", path: `/memories/\u0001/${RESERVED}` },
              controlCharacter(`/memories/\\u0001/${RESERVED}`),
            ],
          ];
          for (const [input, content] of cases) {
            const result = await executeCommand(wrapped, input);
            expect(outcome(result), JSON.stringify(input)).toEqual({
              content,
              isError: true,
            });
          }
          expect(await snapshotStore(store, [KEEP])).toEqual(before);

          const ok = await executeCommand(wrapped, {
            command: "create",
            path: "/memories/ok.md",
            file_text: "ok",
          });
          expect(outcome(ok)).toEqual({ content: created("/memories/ok.md"), isError: false });
        }),
      harness.timeout,
    );
  });
}
