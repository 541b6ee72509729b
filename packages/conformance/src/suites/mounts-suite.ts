/**
 * SPEC §8 over the target's stores: two fresh stores mounted in one `/memories` (routing, listings,
 * read-only mounts, mount points, renames across mounts), and concurrent agents on a shared mount.
 */
import { executeCommand, type MemoryStore, mountStores, type ToolResult } from "@mem/core";
import {
  alreadyExists,
  created,
  crossMountRename,
  deleteMountPoint,
  directoryHeader,
  fileViewHeader,
  outcome,
  readOnlyMount,
  renamed,
  renameMountPoint,
  viewMissing,
} from "../golden/expected.js";
import type { Harness } from "./harness.js";

const AGENTS = 4;
const EDITS_PER_AGENT = 10;

const text = (s: string) => new TextEncoder().encode(s);

/** Runs `body` with two fresh stores of the target. */
const withTwo = <S extends MemoryStore>(harness: Harness<S>, body: (a: S, b: S) => Promise<void>) =>
  harness.withStore((a) => harness.withStore((b) => body(a, b)));

export function mountsSuite<S extends MemoryStore>(harness: Harness<S>): void {
  const { describe, it, expect } = harness;
  const run = async (store: MemoryStore, input: Record<string, unknown>): Promise<ToolResult> =>
    outcome(await executeCommand(store, input)) as ToolResult;
  const ok = (content: string) => ({ content, isError: false });
  const error = (content: string) => ({ content, isError: true });

  describe("mounts (SPEC §8)", () => {
    it(
      "routes each path to its mount's store and lists mount points with their whole size",
      () =>
        withTwo(harness, async (home, team) => {
          const memory = mountStores({ "/memories": { store: home }, "/memories/team": { store: team } });
          await team.write("/memories/playbook.md", text("0123456789"), { ifAbsent: true });
          await team.write("/memories/.notes", text("hidden"), { ifAbsent: true });
          expect(await run(memory, { command: "create", path: "/memories/me.md", file_text: "abc" })).toEqual(
            ok(created("/memories/me.md")),
          );
          expect(
            await run(memory, { command: "create", path: "/memories/team/how/to.md", file_text: "12345" }),
          ).toEqual(ok(created("/memories/team/how/to.md")));
          expect(new TextDecoder().decode((await team.read("/memories/how/to.md"))?.data)).toBe("12345");
          expect(await home.stat("/memories/team")).toBeNull();
          expect(await run(memory, { command: "view", path: "/memories" })).toEqual(
            ok(
              [
                directoryHeader("/memories"),
                "18B\t/memories",
                "3B\t/memories/me.md",
                "15B\t/memories/team/",
                "5B\t/memories/team/how/",
                "10B\t/memories/team/playbook.md",
              ].join("\n"),
            ),
          );
          expect(await run(memory, { command: "view", path: "/memories/team/playbook.md" })).toEqual(
            ok(`${fileViewHeader("/memories/team/playbook.md")}\n     1\t0123456789`),
          );
          expect(
            await run(memory, {
              command: "rename",
              old_path: "/memories/team/how",
              new_path: "/memories/team/guides/how",
            }),
          ).toEqual(ok(renamed("/memories/team/how", "/memories/team/guides/how")));
          expect(await run(memory, { command: "view", path: "/memories/team" })).toEqual(
            ok(
              [
                directoryHeader("/memories/team"),
                "15B\t/memories/team",
                "5B\t/memories/team/guides/",
                "5B\t/memories/team/guides/how/",
                "10B\t/memories/team/playbook.md",
              ].join("\n"),
            ),
          );
        }),
      harness.timeout,
    );

    it(
      "lists an empty mount and hides what the parent store holds at the mount point",
      () =>
        withTwo(harness, async (home, empty) => {
          await home.write("/memories/team/old.md", text("shadowed"), { ifAbsent: true });
          await home.write("/memories/kept.md", text("kept"), { ifAbsent: true });
          const memory = mountStores({ "/memories": { store: home }, "/memories/team": { store: empty } });
          expect(await run(memory, { command: "view", path: "/memories" })).toEqual(
            ok(
              [
                directoryHeader("/memories"),
                "4B\t/memories",
                "4B\t/memories/kept.md",
                "0B\t/memories/team/",
              ].join("\n"),
            ),
          );
          expect(await run(memory, { command: "view", path: "/memories/team/old.md" })).toEqual(
            error(viewMissing("/memories/team/old.md")),
          );
        }),
      harness.timeout,
    );

    it(
      "refuses every write into a read-only mount and leaves its store unchanged",
      () =>
        withTwo(harness, async (home, team) => {
          await team.write("/memories/rules.md", text("rule\n"), { ifAbsent: true });
          await home.write("/memories/mine.md", text("mine\n"), { ifAbsent: true });
          const memory = mountStores({
            "/memories": { store: home },
            "/memories/team": { store: team, access: "read_only" },
          });
          const path = "/memories/team/rules.md";
          const refusal = error(readOnlyMount(path, "/memories/team"));
          for (const input of [
            { command: "create", path: "/memories/team/rules.md", file_text: "x" },
            { command: "str_replace", path, old_str: "rule", new_str: "none" },
            { command: "insert", path, insert_line: 0, insert_text: "x" },
            { command: "delete", path },
            { command: "rename", old_path: path, new_path: "/memories/team/r.md" },
          ]) {
            expect(await run(memory, input)).toEqual(refusal);
          }
          expect(
            await run(memory, { command: "rename", old_path: "/memories/mine.md", new_path: path }),
          ).toEqual(refusal);
          expect(await run(memory, { command: "view", path })).toEqual(
            ok(`${fileViewHeader(path)}\n     1\trule`),
          );
          expect((await team.list("/memories", 2))?.entries.map((e) => e.path)).toEqual([
            "/memories/rules.md",
          ]);
          expect(new TextDecoder().decode((await team.read("/memories/rules.md"))?.data)).toBe("rule\n");
        }),
      harness.timeout,
    );

    it(
      "keeps mount points: no delete, rename or overwrite of one, and no rename across mounts",
      () =>
        withTwo(harness, async (home, shared) => {
          const memory = mountStores({
            "/memories": { store: home },
            "/memories/a/shared": { store: shared },
          });
          await run(memory, { command: "create", path: "/memories/a/shared/s.md", file_text: "s" });
          await run(memory, { command: "create", path: "/memories/h.md", file_text: "h" });
          expect(await run(memory, { command: "delete", path: "/memories/a" })).toEqual(
            error(deleteMountPoint("/memories/a", "/memories/a/shared")),
          );
          expect(await run(memory, { command: "delete", path: "/memories/a/shared" })).toEqual(
            error(deleteMountPoint("/memories/a/shared", "/memories/a/shared")),
          );
          expect(
            await run(memory, { command: "rename", old_path: "/memories/a", new_path: "/memories/b" }),
          ).toEqual(error(renameMountPoint("/memories/a", "/memories/a/shared")));
          expect(
            await run(memory, {
              command: "rename",
              old_path: "/memories/h.md",
              new_path: "/memories/a/shared",
            }),
          ).toEqual(error(renameMountPoint("/memories/a/shared", "/memories/a/shared")));
          expect(
            await run(memory, { command: "create", path: "/memories/a/shared", file_text: "x" }),
          ).toEqual(error(alreadyExists("/memories/a/shared")));
          expect(await run(memory, { command: "create", path: "/memories/a", file_text: "x" })).toEqual(
            error(alreadyExists("/memories/a")),
          );
          expect(
            await run(memory, {
              command: "rename",
              old_path: "/memories/h.md",
              new_path: "/memories/a/shared/h.md",
            }),
          ).toEqual(error(crossMountRename("/memories/h.md", "/memories/a/shared/h.md")));
          expect(await run(memory, { command: "view", path: "/memories" })).toEqual(
            ok(
              [
                directoryHeader("/memories"),
                "2B\t/memories",
                "1B\t/memories/a/",
                "1B\t/memories/a/shared/",
                "1B\t/memories/h.md",
              ].join("\n"),
            ),
          );
        }),
      harness.timeout,
    );

    it(
      `${AGENTS * EDITS_PER_AGENT} concurrent inserts by ${AGENTS} agents on a shared read-write mount lose none`,
      () =>
        withTwo(harness, async (home, shared) => {
          const path = "/memories/shared/log.md";
          await shared.write("/memories/log.md", text(""), { ifAbsent: true });
          const peers = await Promise.all(Array.from({ length: AGENTS }, () => harness.openPeer(shared)));
          try {
            const agents = peers.map(({ peer }) =>
              mountStores({ "/memories": { store: home }, "/memories/shared": { store: peer } }),
            );
            const results = await Promise.all(
              agents.flatMap((agent, a) =>
                Array.from({ length: EDITS_PER_AGENT }, (_, i) =>
                  run(agent, { command: "insert", path, insert_line: 0, insert_text: `agent-${a}-${i}` }),
                ),
              ),
            );
            expect(results.filter((r) => r.isError)).toEqual([]);
            const lines = new TextDecoder()
              .decode((await shared.read("/memories/log.md"))?.data)
              .split("\n")
              .filter((l) => l !== "");
            expect(new Set(lines).size).toBe(AGENTS * EDITS_PER_AGENT);
          } finally {
            await Promise.all(peers.map((p) => p.release()));
          }
        }),
      harness.timeout,
    );
  });
}
