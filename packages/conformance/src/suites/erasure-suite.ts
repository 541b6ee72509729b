import { ErasingError, executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { FakeClock } from "./expiry-suite.js";
import type { Harness } from "./harness.js";

/** One record of the raw medium: a key, file path, row or object name, and its value as text. */
export interface RawRecord {
  readonly key: string;
  readonly value: string;
}

/** What the erasure suite needs beyond the harness: the store's raw medium, read around the contract. */
export interface ErasureHarness<S extends MemoryStore> extends Harness<S> {
  /** Every record the medium holds for `store` (every key and value, row, object, file), read directly. */
  readonly dump: (store: S) => Promise<readonly RawRecord[]>;
  /** `tenants()` pages in the byte order of `id + "/"` (an S3 bucket's key order), not of ids. */
  readonly tenantKeyOrder: boolean;
  /** `create`'s stores are themselves tenants (so their `purge()` is allowed, not a `TypeError`). */
  readonly createIsScoped: boolean;
  /** The medium holds what the tenant wrote in plaintext (false for an encrypting wrapper). */
  readonly plaintext: boolean;
  /** Runs `body` on a fresh store with expiry on (so access indexes exist), or a plain one. */
  withErasureStore(clock: FakeClock, body: (store: S) => Promise<void>): Promise<void>;
}

/** The engine's answers to an edit of `path` while its tenant is erased, and while the file is missing. */
const answersTo = async (path: string): Promise<{ erasing: string; missing: string }> => {
  const edit = { command: "str_replace", path, old_str: "a", new_str: "b" };
  const seeded = new InMemoryStore();
  await seeded.write(path, new Uint8Array([97]), { ifAbsent: true });
  const erased = async () => {
    throw new ErasingError(path);
  };
  // Every change is refused as a purge's fence refuses it; reads see the file.
  const erasing = new Proxy(seeded, {
    get: (target, key) => {
      if (key === "write" || key === "update" || key === "delete" || key === "rename") return erased;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    erasing: (await executeCommand(erasing, edit)).content,
    missing: (await executeCommand(new InMemoryStore(), edit)).content,
  };
};

const scopeOf = (store: MemoryStore, tenant: string): MemoryStore => {
  if (!store.scope) throw new Error("the store has no scope()");
  return store.scope(tenant);
};

const must = async (store: MemoryStore, input: Record<string, unknown>): Promise<void> => {
  const result = await executeCommand(store, input);
  if (result.isError) throw new Error(`${String(input.command)} ${String(input.path)}: ${result.content}`);
};

/** Markers unique to one tenant: none of them is a substring of another tenant's. */
const markersOf = (tag: string): string[] =>
  ["file", "hidden", "nested", "renamed", "history", "edited", "modules"].map((m) => `mk${m}Q${tag}Z`);

/**
 * Fills `store` as a tenant would: files, hidden files, `node_modules`, an edit, a directory rename, a
 * delete, a nested tenant, and a version where `@mem/history` keeps them (written directly, as it does).
 */
async function fill(store: MemoryStore, tag: string): Promise<void> {
  const [file, hidden, nested, renamed, history, edited, modules] = markersOf(tag);
  await must(store, { command: "create", path: "/memories/notes.md", file_text: `${file}\n` });
  await must(store, { command: "create", path: "/memories/.secret", file_text: `${hidden}\n` });
  await must(store, { command: "create", path: "/memories/node_modules/m.js", file_text: `${modules}\n` });
  await must(store, { command: "create", path: "/memories/dir/a/one.md", file_text: `${renamed}\n` });
  await must(store, { command: "create", path: "/memories/dir/a/two.md", file_text: `${renamed}\n` });
  await must(store, { command: "rename", old_path: "/memories/dir", new_path: "/memories/moved" });
  await must(store, { command: "create", path: "/memories/edit.md", file_text: "before\n" });
  await must(store, {
    command: "str_replace",
    path: "/memories/edit.md",
    old_str: "before",
    new_str: edited,
  });
  await must(store, { command: "create", path: "/memories/gone.md", file_text: `${file} gone\n` });
  await must(store, { command: "delete", path: "/memories/gone.md" });
  await store.write("/memories/.mem-history/0123456789abcdef/v1", new TextEncoder().encode(`${history}\n`), {
    ifAbsent: true,
  });
  await must(scopeOf(store, "inner"), {
    command: "create",
    path: "/memories/deep.md",
    file_text: `${nested}\n`,
  });
}

const mentions = (records: readonly RawRecord[], needles: readonly string[]): RawRecord[] =>
  records.filter((r) => needles.some((n) => r.key.includes(n) || r.value.includes(n)));

const sorted = (records: readonly RawRecord[]): string[] =>
  records.map((r) => `${r.key}\u0000${r.value}`).sort();

/**
 * The optional erasure suite: `tenants()` and `purge()` (see `MemoryStore`). Fills two tenants, purges
 * one, and reads the raw medium: nothing of the purged tenant is left (its id, and marker strings from
 * each kind of content it wrote), and every record of the other tenant is byte-identical.
 */
export function erasureSuite<S extends MemoryStore>(harness: ErasureHarness<S>): void {
  const withStore = (body: (store: S, clock: FakeClock) => Promise<void>) => () => {
    const clock = new FakeClock();
    return harness.withErasureStore(clock, (store) => body(store, clock));
  };
  const run = Math.random().toString(36).slice(2, 8);
  const gone = `erasegone${run}`;
  const kept = `erasekept${run}`;

  const { describe, it, expect } = harness;
  describe("erasure: tenants() and purge()", () => {
    it(
      "purge removes every record of one tenant from the medium and leaves the other byte-identical",
      withStore(async (store) => {
        await fill(scopeOf(store, gone), gone);
        await fill(scopeOf(store, kept), kept);
        const goneNeedles = [gone, ...markersOf(gone)];
        const before = await harness.dump(store);
        // Checks the scan itself: it must see what it later claims is gone.
        for (const needle of harness.plaintext ? goneNeedles : [gone]) {
          expect(mentions(before, [needle]).length, `the raw scan sees ${needle}`).toBeGreaterThan(0);
        }
        // The kept tenant's records: named by its id, or holding what it wrote. (A shared index that lists
        // both tenants' ids is not one of them: it loses the purged id.)
        const keptMarkers = markersOf(kept);
        const keptRecords = (records: readonly RawRecord[]) =>
          records.filter((r) => r.key.includes(kept) || keptMarkers.some((m) => r.value.includes(m)));
        const keptBefore = sorted(keptRecords(before));

        const dry = await (scopeOf(store, gone).purge?.({ dryRun: true }) ??
          Promise.reject(new Error("no purge")));
        expect(dry.files).toBeGreaterThanOrEqual(7);
        expect(dry.bytes).toBeGreaterThan(0);
        expect(sorted(await harness.dump(store))).toEqual(sorted(before));

        const removed = await (scopeOf(store, gone).purge?.() ?? Promise.reject(new Error("no purge")));
        expect(removed.files).toBe(dry.files);
        expect(removed.bytes).toBe(dry.bytes);

        const after = await harness.dump(store);
        expect(mentions(after, goneNeedles).map((r) => r.key)).toEqual([]);
        expect(sorted(keptRecords(after))).toEqual(keptBefore);
        expect(mentions(after, [kept]).length).toBeGreaterThan(0);

        // Idempotent: nothing left, nothing removed.
        expect(await scopeOf(store, gone).purge?.()).toMatchObject({ files: 0, bytes: 0 });
        // The purged scope is an empty, working store again.
        const reborn = scopeOf(store, gone);
        expect((await reborn.list("/memories", 2))?.entries).toEqual([]);
        await must(reborn, { command: "create", path: "/memories/again.md", file_text: "again\n" });
        expect(new TextDecoder().decode((await reborn.read("/memories/again.md"))?.data)).toBe("again\n");
      }),
      harness.timeout,
    );

    it(
      "purge of a tenant that holds nothing succeeds with 0 removed; unscoped purge and bad ids are TypeErrors",
      withStore(async (store) => {
        await must(store, { command: "create", path: "/memories/root.md", file_text: "root\n" });
        expect(await scopeOf(store, `nobody${run}`).purge?.()).toMatchObject({ files: 0, bytes: 0 });
        if (!harness.createIsScoped) {
          const unscoped = (options?: { dryRun: boolean }) =>
            store.purge?.(options) ?? Promise.reject(new TypeError("no purge"));
          await expect(unscoped()).rejects.toThrow(TypeError);
          await expect(unscoped({ dryRun: true })).rejects.toThrow(TypeError);
        }
        expect(() => scopeOf(store, "../x")).toThrow(TypeError);
        expect(new TextDecoder().decode((await store.read("/memories/root.md"))?.data)).toBe("root\n");
      }),
      harness.timeout,
    );

    it(
      "tenants() pages the direct tenants in byte order, with files and bytes where kept",
      withStore(async (store, clock) => {
        if (!store.tenants) throw new Error("the store has no tenants()");
        const ids = ["b", "A", "a.b", "a", "Z-9", "a@x", "c"];
        for (const id of ids) {
          await must(scopeOf(store, id), { command: "create", path: "/memories/x.md", file_text: `${id}\n` });
        }
        clock.advance(1);
        await must(scopeOf(scopeOf(store, "a"), "nested"), {
          command: "create",
          path: "/memories/n.md",
          file_text: "n\n",
        });
        await must(store, { command: "create", path: "/memories/root.md", file_text: "root\n" });
        const key = (id: string) => (harness.tenantKeyOrder ? `${id}/` : id);
        const expected = [...ids].sort((p, q) => (key(p) < key(q) ? -1 : key(p) > key(q) ? 1 : 0));
        const seen: string[] = [];
        let after: string | undefined;
        let pages = 0;
        do {
          const page = await store.tenants(after === undefined ? { limit: 2 } : { after, limit: 2 });
          expect(page.tenants.length).toBeLessThanOrEqual(2);
          for (const t of page.tenants) {
            seen.push(t.id);
            if (t.files !== undefined) expect(t.files).toBe(1);
            if (t.bytes !== undefined) expect(t.bytes).toBe(t.id.length + 1);
            if (t.lastAccess !== undefined) expect(t.lastAccess).toBeLessThanOrEqual(clock.now());
          }
          after = page.next;
          pages += 1;
        } while (after !== undefined && pages < 10);
        expect(seen).toEqual(expected);
        expect((await store.tenants({ limit: 1000 })).next).toBeUndefined();
        await scopeOf(store, "b").purge?.();
        expect((await store.tenants()).tenants.map((t) => t.id)).toEqual(expected.filter((id) => id !== "b"));
        await expect(store.tenants({ limit: 0 })).rejects.toThrow(TypeError);
        await expect(store.tenants({ after: "../x" })).rejects.toThrow(TypeError);
        // A scope's tenants are its nested ones only.
        expect((await scopeOf(store, "a").tenants?.())?.tenants.map((t) => t.id)).toEqual(["nested"]);
      }),
      harness.timeout,
    );

    it(
      "purge while 12 writers edit the tenant: each write lands before (and goes) or is refused; nothing of it is left",
      withStore(async (store) => {
        const racer = `eraserace${run}`;
        const marker = (i: number) => `mkraceQ${run}Z${i}`;
        const writers = 12;
        for (let i = 0; i < writers; i++) {
          await must(scopeOf(store, racer), {
            command: "create",
            path: `/memories/w${i}.md`,
            file_text: `${marker(i)} 0\n`,
          });
        }
        let purged = false;
        let edited = 0;
        const unexpected: string[] = [];
        const answers = await Promise.all(
          Array.from({ length: writers }, (_, i) => answersTo(`/memories/w${i}.md`)),
        );
        const writer = async (i: number) => {
          // Each writer its own scope object, as agents in separate requests have.
          const scoped = scopeOf(store, racer);
          for (let n = 0; !purged; ) {
            const result = await executeCommand(scoped, {
              command: "str_replace",
              path: `/memories/w${i}.md`,
              old_str: ` ${n}\n`,
              new_str: ` ${n + 1}\n`,
            });
            if (!result.isError) {
              edited += 1;
              n += 1;
            } else if (result.content !== answers[i]?.erasing && result.content !== answers[i]?.missing) {
              unexpected.push(result.content);
            }
            // A writer waits for its model between calls: the event loop (and the purge) runs meanwhile.
            await new Promise((resolve) => setTimeout(resolve, 0));
          }
        };
        const running = Array.from({ length: writers }, (_, i) => writer(i));
        while (edited < writers * 2 && unexpected.length === 0) {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        const removed = await (scopeOf(store, racer).purge?.() ?? Promise.reject(new Error("no purge")));
        purged = true;
        await Promise.all(running);
        expect(unexpected).toEqual([]);
        expect(removed.files).toBe(writers);
        // No text written before or during the purge is left, and the tenant is not listed again. (A read
        // racing the purge may leave the tenant's empty namespace behind on some media: it holds nothing.)
        const needles = Array.from({ length: writers }, (_, i) => marker(i));
        expect(mentions(await harness.dump(store), needles).map((r) => r.key)).toEqual([]);
        const listed = (await store.tenants?.({ limit: 1000 }))?.tenants ?? [];
        // Stores that count a tenant's files must not count any for it; S3's tenants() gives ids only.
        expect(listed.filter((t) => t.id === racer && t.files !== undefined && t.files > 0)).toEqual([]);
        // The purge is over: the tenant is empty and writable again.
        const after = scopeOf(store, racer);
        expect((await after.list("/memories", 2))?.entries).toEqual([]);
        await must(after, { command: "create", path: "/memories/w0.md", file_text: "new\n" });
      }),
      harness.timeout,
    );
  });
}
