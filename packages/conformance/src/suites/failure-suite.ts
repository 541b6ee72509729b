import { executeCommand, type MemoryStore } from "@mem/core";
import { outcome } from "../golden/expected.js";
import { snapshotStore } from "../store-tree.js";
import { FailingStore, type StoreOperation } from "../wrappers.js";
import type { Harness } from "./harness.js";

const KEEP = "/memories/keep.md";
const NESTED = "/memories/dir/a.md";
const SECRET = "password=hunter2-do-not-leak";

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `Error: {operation} failed for {path}: {reason}` for one of `paths`. */
const failureResult = (paths: readonly string[], reason: string): RegExp =>
  new RegExp(
    `^Error: [A-Za-z_ -]+ failed for (${paths.map(escapeRegExp).join("|")}): ${escapeRegExp(reason)}$`,
  );

const COMMANDS: ReadonlyArray<{
  input: Record<string, unknown>;
  paths: readonly string[];
  mutates: boolean;
}> = [
  { input: { command: "view", path: KEEP }, paths: [KEEP], mutates: false },
  { input: { command: "view", path: "/memories" }, paths: ["/memories"], mutates: false },
  {
    input: { command: "create", path: "/memories/new.md", file_text: "new\n" },
    paths: ["/memories/new.md"],
    mutates: true,
  },
  {
    input: { command: "str_replace", path: KEEP, old_str: "one", new_str: "1" },
    paths: [KEEP],
    mutates: true,
  },
  {
    input: { command: "insert", path: KEEP, insert_line: 1, insert_text: "x" },
    paths: [KEEP],
    mutates: true,
  },
  { input: { command: "delete", path: KEEP }, paths: [KEEP], mutates: true },
  { input: { command: "delete", path: "/memories/dir" }, paths: ["/memories/dir", NESTED], mutates: true },
  {
    input: { command: "rename", old_path: KEEP, new_path: "/memories/moved.md" },
    paths: [KEEP, "/memories/moved.md"],
    mutates: true,
  },
];

export function failureSuite<S extends MemoryStore>(harness: Harness<S>): void {
  const { describe, it, expect } = harness;
  const seeded = async (store: S): Promise<void> => {
    const encoder = new TextEncoder();
    await store.write(KEEP, encoder.encode("one\ntwo\n"), { ifAbsent: true });
    await store.write(NESTED, encoder.encode("a\n"), { ifAbsent: true });
  };
  const probes = [KEEP, NESTED, "/memories/new.md", "/memories/moved.md"];

  const scenario = (title: string, failing: readonly StoreOperation[], onlyMutating: boolean) =>
    it(
      title,
      () =>
        harness.withStore(async (store) => {
          await seeded(store);
          const before = await snapshotStore(store, probes);
          const broken = new FailingStore(store, new Set(failing));
          for (const { input, paths } of COMMANDS.filter((c) => c.mutates || !onlyMutating)) {
            const result = outcome(await executeCommand(broken, input));
            expect(result.isError, JSON.stringify(input)).toBe(true);
            expect(result.content, JSON.stringify(input)).toMatch(failureResult(paths, "simulated outage"));
            expect(await snapshotStore(store, probes), `after ${JSON.stringify(input)}`).toEqual(before);
          }
        }),
      harness.timeout,
    );

  describe("storage failures (through a store whose operations fail)", () => {
    scenario(
      "every command reports a StoreFailureError as `Error: {operation} failed for {path}: {reason}`",
      ["read", "stat", "list", "write", "delete", "rename"],
      false,
    );
    scenario(
      "a command whose reads succeed but whose write, delete or rename fails changes nothing",
      ["write", "delete", "rename"],
      true,
    );
    it(
      "an unexpected error from the store becomes an error result that does not repeat its message",
      () =>
        harness.withStore(async (store) => {
          await seeded(store);
          const before = await snapshotStore(store, probes);
          const broken = new FailingStore(
            store,
            new Set<StoreOperation>(["read", "stat", "list", "write", "delete", "rename"]),
            () => new Error(`connect ECONNREFUSED 10.0.0.1:6379 ${SECRET}`),
          );
          for (const { input } of COMMANDS) {
            const result = outcome(await executeCommand(broken, input));
            expect(result.isError, JSON.stringify(input)).toBe(true);
            expect(result.content.startsWith("Error: "), result.content).toBe(true);
            expect(result.content).not.toContain("hunter2");
          }
          expect(await snapshotStore(store, probes)).toEqual(before);
        }),
      harness.timeout,
    );
  });
}
