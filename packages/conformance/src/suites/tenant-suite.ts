import { executeCommand, type MemoryStore, type ToolResult } from "@mem/core";
import * as x from "../golden/expected.js";
import { liveUsage, snapshotStore } from "../store-tree.js";
import type { Harness } from "./harness.js";

const run = (store: MemoryStore, input: Record<string, unknown>): Promise<ToolResult> =>
  executeCommand(store, input);

const scopeOf = (store: MemoryStore, tenant: string): MemoryStore => {
  if (!store.scope) throw new Error("the store has no scope(): construct it with tenant support");
  return store.scope(tenant);
};

/** Tenant ids SPEC §7 refuses, with why. */
const BAD_TENANTS: ReadonlyArray<[unknown, string]> = [
  ["", "empty"],
  [".", "a dot"],
  ["..", "two dots"],
  ["a/b", "a slash"],
  ["../bob", "a traversal"],
  ["a\\b", "a backslash"],
  ["a\u0000b", "NUL"],
  ["a b", "a space"],
  ["x".repeat(129), "129 bytes"],
  ["é", "a non-ASCII letter"],
  ["{tag}", "braces"],
  ["a:b", "a colon"],
  ["a*", "a glob"],
  [42, "not a string"],
];

/** Paths a model might use to reach another tenant, or the store's own namespace. */
const HOSTILE_PATHS: readonly string[] = [
  "/memories/../bob/secret.md",
  "/memories/%2e%2e/bob/secret.md",
  "/memories/..%2fbob/secret.md",
  "/memories/\uff0e\uff0e/bob/secret.md",
  "/memories/bob/../../secret.md",
  "/memories\\..\\bob\\secret.md",
  "/memories/./secret.md",
  "/memories//bob/secret.md",
  "/bob/secret.md",
  "/memories/\u0000bob",
  "../memories/bob/secret.md",
];

export function tenantSuite<S extends MemoryStore>(harness: Harness<S>): void {
  const { describe, it, expect } = harness;
  describe("tenants (SPEC §7)", () => {
    it(
      "refuses invalid tenant ids with a TypeError at scope() and writes nothing",
      () =>
        harness.withStore(async (store) => {
          await run(store, { command: "create", path: "/memories/keep.md", file_text: "keep\n" });
          const before = await snapshotStore(store, ["/memories/keep.md"]);
          for (const [tenant, why] of BAD_TENANTS) {
            expect(() => scopeOf(store, tenant as string), `tenant with ${why}`).toThrow(TypeError);
          }
          // The longest valid id and every allowed character work.
          expect(() => scopeOf(store, "x".repeat(128))).not.toThrow();
          expect(() => scopeOf(store, "Az09._@+-")).not.toThrow();
          expect(await snapshotStore(store, ["/memories/keep.md"])).toEqual(before);
        }),
      harness.timeout,
    );

    it(
      "gives each tenant its own /memories: paths, listings, sizes and deletes never cross",
      () =>
        harness.withStore(async (store) => {
          const alice = scopeOf(store, "alice");
          const bob = scopeOf(store, "bob@example.com");
          expect(
            (await run(alice, { command: "create", path: "/memories/a.md", file_text: "alice\n" })).isError,
          ).toBe(false);
          expect(
            (await run(alice, { command: "create", path: "/memories/d/x.md", file_text: "ax\n" })).isError,
          ).toBe(false);
          expect(await run(bob, { command: "view", path: "/memories/a.md" })).toEqual({
            content: x.viewMissing("/memories/a.md"),
            isError: true,
          });
          const emptyListing = x.directoryHeader("/memories") + "\n0B\t/memories";
          expect(await run(bob, { command: "view", path: "/memories" })).toEqual({
            content: emptyListing,
            isError: false,
          });
          // The unscoped store sees none of its tenants' files.
          expect(await run(store, { command: "view", path: "/memories" })).toEqual({
            content: emptyListing,
            isError: false,
          });

          // The same path in another tenant and in the parent is another file.
          expect(
            (await run(bob, { command: "create", path: "/memories/a.md", file_text: "bob!!\n" })).isError,
          ).toBe(false);
          expect(
            (await run(store, { command: "create", path: "/memories/a.md", file_text: "root\n" })).isError,
          ).toBe(false);
          expect((await run(alice, { command: "view", path: "/memories/a.md" })).content).toBe(
            x.fileViewHeader("/memories/a.md") + "\n     1\talice",
          );
          expect(await run(alice, { command: "view", path: "/memories" })).toEqual({
            content:
              x.directoryHeader("/memories") +
              "\n9B\t/memories\n6B\t/memories/a.md\n3B\t/memories/d/\n3B\t/memories/d/x.md",
            isError: false,
          });
          // Deleting and renaming in one tenant leaves the others alone.
          expect((await run(bob, { command: "delete", path: "/memories/a.md" })).isError).toBe(false);
          expect(
            (await run(store, { command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" }))
              .isError,
          ).toBe(false);
          expect((await run(alice, { command: "view", path: "/memories/a.md" })).isError).toBe(false);
          expect((await run(alice, { command: "view", path: "/memories/b.md" })).isError).toBe(true);
          // Asking for the same tenant again reaches the same files.
          expect(
            (await run(scopeOf(store, "alice"), { command: "view", path: "/memories/d/x.md" })).isError,
          ).toBe(false);
          if (alice.usage && bob.usage && store.usage) {
            expect(liveUsage(await alice.usage())).toEqual({ files: 2, bytes: 9 });
            expect(liveUsage(await bob.usage())).toEqual({ files: 0, bytes: 0 });
            expect(liveUsage(await store.usage())).toEqual({ files: 1, bytes: 5 });
          }
        }),
      harness.timeout,
    );

    it(
      "nests scopes: a.b, b, a, the unscoped store and the tenant `default` are five stores",
      () =>
        harness.withStore(async (store) => {
          const stores: ReadonlyArray<[string, MemoryStore]> = [
            ["a.b", scopeOf(scopeOf(store, "a"), "b")],
            ["b", scopeOf(store, "b")],
            ["a", scopeOf(store, "a")],
            ["unscoped", store],
            ["default", scopeOf(store, "default")],
            ["b.a", scopeOf(scopeOf(store, "b"), "a")],
            ["a.default", scopeOf(scopeOf(store, "a"), "default")],
          ];
          for (const [name, scoped] of stores) {
            const created = await run(scoped, {
              command: "create",
              path: "/memories/who.md",
              file_text: name,
            });
            expect(created.isError, name).toBe(false);
            // Each also makes a directory named like the others, where a flattened layout would collide.
            const nested = await run(scoped, {
              command: "create",
              path: `/memories/${name}/x.md`,
              file_text: name,
            });
            expect(nested.isError, name).toBe(false);
          }
          for (const [name, scoped] of stores) {
            expect(await run(scoped, { command: "view", path: "/memories/who.md" }), name).toEqual({
              content: `${x.fileViewHeader("/memories/who.md")}\n     1\t${name}`,
              isError: false,
            });
            const size = name.length;
            expect(await run(scoped, { command: "view", path: "/memories" }), name).toEqual({
              content:
                `${x.directoryHeader("/memories")}\n${2 * size}B\t/memories\n` +
                `${size}B\t/memories/${name}/\n${size}B\t/memories/${name}/x.md\n${size}B\t/memories/who.md`,
              isError: false,
            });
            if (scoped.usage)
              expect(liveUsage(await scoped.usage()), name).toEqual({ files: 2, bytes: 2 * size });
          }
          // The same chain reached again is the same tenant.
          expect(
            (await run(scopeOf(scopeOf(store, "a"), "b"), { command: "view", path: "/memories/who.md" }))
              .content,
          ).toBe(`${x.fileViewHeader("/memories/who.md")}\n     1\ta.b`);
          // Deletes in one store leave the tenants inside it, and the store it is inside, alone.
          const outer = scopeOf(store, "a");
          expect((await run(outer, { command: "delete", path: "/memories/who.md" })).isError).toBe(false);
          if (outer.usage) expect(liveUsage(await outer.usage())).toEqual({ files: 1, bytes: 1 });
          for (const [name, scoped] of stores) {
            if (name === "a") continue;
            expect((await run(scoped, { command: "view", path: "/memories/who.md" })).isError, name).toBe(
              false,
            );
          }
        }),
      harness.timeout,
    );

    it(
      "confines hostile paths and tenant ids that look like bookkeeping names to their tenant",
      () =>
        harness.withStore(async (store) => {
          const bob = scopeOf(store, "bob");
          await run(bob, { command: "create", path: "/memories/secret.md", file_text: "bob's\n" });
          await run(store, { command: "create", path: "/memories/secret.md", file_text: "root's\n" });
          const probes = ["/memories/secret.md", "/memories/bob", "/memories/bob/secret.md"];
          const bobBefore = await snapshotStore(bob, probes);
          const rootBefore = await snapshotStore(store, probes);
          for (const tenant of [
            "mallory",
            "..bob",
            ".tenants",
            "node_modules",
            "...",
            "memories",
            "-",
            "+",
          ]) {
            const mallory = scopeOf(store, tenant);
            for (const path of HOSTILE_PATHS) {
              for (const input of [
                { command: "view", path },
                { command: "create", path, file_text: "stolen\n" },
                { command: "str_replace", path, old_str: "bob", new_str: "mallory" },
                { command: "delete", path },
                { command: "rename", old_path: path, new_path: "/memories/mine.md" },
                { command: "rename", old_path: "/memories/mine.md", new_path: path },
              ]) {
                const result = await run(mallory, input);
                expect(result.content).not.toContain("bob's");
                expect(result.content).not.toContain("root's");
              }
            }
            // What a tenant can reach at all is its own, even at names equal to other tenants' ids.
            await run(mallory, { command: "create", path: "/memories/bob/secret.md", file_text: "m\n" });
            expect((await run(mallory, { command: "view", path: "/memories/secret.md" })).isError).toBe(true);
            expect((await run(mallory, { command: "delete", path: "/memories" })).isError).toBe(true);
          }
          expect(await snapshotStore(bob, probes)).toEqual(bobBefore);
          expect(await snapshotStore(store, probes)).toEqual(rootBefore);
        }),
      harness.timeout,
    );

    it(
      "never names the tenant in a result",
      () =>
        harness.withStore(async (store) => {
          const tenant = "tenant-7f3a9c.example";
          const scoped = scopeOf(store, tenant);
          const inputs: Record<string, unknown>[] = [
            { command: "create", path: "/memories/a.md", file_text: "one\n" },
            { command: "create", path: "/memories/a.md", file_text: "one\n" },
            { command: "create", path: "/memories/a.md/b", file_text: "x" },
            { command: "view", path: "/memories" },
            { command: "view", path: "/memories/a.md" },
            { command: "view", path: "/memories/nope" },
            { command: "str_replace", path: "/memories/a.md", old_str: "one", new_str: "two" },
            { command: "str_replace", path: "/memories/a.md", old_str: "zzz", new_str: "two" },
            { command: "insert", path: "/memories/a.md", insert_line: 9, insert_text: "x" },
            { command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" },
            { command: "rename", old_path: "/memories/nope", new_path: "/memories/c.md" },
            { command: "delete", path: "/memories/b.md" },
            { command: "delete", path: "/memories/b.md" },
          ];
          for (const input of inputs) {
            const result = await run(scoped, input);
            expect(result.content, JSON.stringify(input)).not.toContain(tenant);
          }
        }),
      harness.timeout,
    );
  });
}
