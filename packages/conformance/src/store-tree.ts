/**
 * Reading a store's whole visible tree back through the `MemoryStore` contract, to compare it with an
 * expected tree or with an earlier snapshot.
 */
import { ancestorsOf, isListedName, type MemoryStore, ROOT, segmentsOf, type Usage } from "@mem/core";
import { expect as vitestExpect } from "vitest";
import { type ContentSpec, materialize } from "./content.js";

export interface ListedTree {
  /** Listed files and their sizes as the listing reports them. */
  readonly files: Map<string, number>;
  /** Listed directories and their sizes as the listing reports them (`/memories` included). */
  readonly directories: Map<string, number>;
}

/** Walks the listing of `/memories` one level at a time, so any store depth limit is irrelevant. */
export async function listTree(store: MemoryStore): Promise<ListedTree> {
  const files = new Map<string, number>();
  const directories = new Map<string, number>();
  const walk = async (dir: string): Promise<void> => {
    const listing = await store.list(dir, 1);
    if (listing === null) throw new Error(`list(${dir}, 1) returned null for a listed directory`);
    directories.set(dir, listing.size);
    for (const entry of listing.entries) {
      if (entry.depth !== 1)
        throw new Error(`list(${dir}, 1) returned ${entry.path} at depth ${entry.depth}`);
      if (entry.kind === "file") files.set(entry.path, entry.size);
      else await walk(entry.path);
    }
  };
  await walk(ROOT);
  return { files, directories };
}

const isListedPath = (path: string): boolean => segmentsOf(path).every(isListedName);

/** The index of the first byte where `a` and `b` differ (their common length when one is a prefix). */
const firstDifference = (a: Uint8Array, b: Uint8Array): number => {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return n;
};

/** Length, the bytes from `at` in hex (so two different contents never describe alike), and some text. */
const describeBytes = (bytes: Uint8Array, at: number): string => {
  const window = Buffer.from(bytes.subarray(at, at + 48));
  const text = Buffer.from(bytes).toString("utf8");
  return [
    `${bytes.length} bytes`,
    `from byte ${at}: ${window.toString("hex")} ${JSON.stringify(window.toString("utf8"))}`,
    `text: ${JSON.stringify(text.length > 2000 ? `${text.slice(0, 2000)}...` : text)}`,
  ].join("\n");
};

/**
 * Asserts that the store holds exactly `expected`: the listed files are exactly its listed paths, each
 * file's bytes match, listing sizes agree, directories exist exactly where files lie beneath them, and
 * every path of `absent` is gone.
 */
export async function expectTree(
  store: MemoryStore,
  expected: Readonly<Record<string, ContentSpec>>,
  absent: readonly string[] = [],
  expect: typeof vitestExpect = vitestExpect,
): Promise<void> {
  const wanted = new Map(Object.entries(expected).map(([path, spec]) => [path, materialize(spec)]));
  const tree = await listTree(store);

  const listedWanted = [...wanted.keys()].filter(isListedPath).sort();
  expect([...tree.files.keys()].sort(), "the files the listing shows").toEqual(listedWanted);

  for (const [path, bytes] of wanted) {
    const file = await store.read(path);
    expect(file, `read(${path})`).not.toBeNull();
    const actual = file!.data;
    if (Buffer.compare(Buffer.from(actual), Buffer.from(bytes)) !== 0) {
      const at = firstDifference(actual, bytes);
      expect(describeBytes(actual, at), `content of ${path}`).toBe(describeBytes(bytes, at));
    }
    if (tree.files.has(path)) expect(tree.files.get(path), `listed size of ${path}`).toBe(bytes.length);
  }

  // A directory is listed exactly while some listed file lies beneath it; its size is their total.
  const dirSizes = new Map<string, number>([[ROOT, 0]]);
  for (const path of listedWanted) {
    for (const dir of ancestorsOf(path))
      dirSizes.set(dir, (dirSizes.get(dir) ?? 0) + wanted.get(path)!.length);
  }
  const allAncestors = new Set([...wanted.keys()].flatMap(ancestorsOf));
  for (const dir of tree.directories.keys()) {
    expect(allAncestors.has(dir) || dir === ROOT, `listed directory ${dir} has a file beneath it`).toBe(true);
  }
  for (const [dir, size] of dirSizes) {
    expect(tree.directories.has(dir), `directory ${dir} is listed`).toBe(true);
    expect(tree.directories.get(dir), `listed size of directory ${dir}`).toBe(size);
  }

  for (const path of absent) expect(await store.stat(path), `stat(${path}) of an absent path`).toBeNull();
}

/** Everything observable about a store: listed files with their bytes, plus the probed paths. */
export type StoreSnapshot = Record<string, string | null>;

/** What is at each path of `paths` (canonical paths only): base64 of a file's bytes, `directory`, or null. */
export async function probePaths(store: MemoryStore, paths: Iterable<string>): Promise<StoreSnapshot> {
  const out: StoreSnapshot = {};
  for (const path of [...new Set(paths)].sort()) {
    const file = await store.read(path);
    if (file !== null) out[path] = Buffer.from(file.data).toString("base64");
    else out[path] = (await store.stat(path))?.kind ?? null;
  }
  return out;
}

/**
 * A comparable picture of the store: every listed directory with its size, every listed file with its
 * bytes, and what is at each path of `probes` (which also covers hidden files the listing leaves out).
 * `probes` must be canonical paths.
 */
export async function snapshotStore(
  store: MemoryStore,
  probes: Iterable<string> = [],
): Promise<StoreSnapshot> {
  const tree = await listTree(store);
  const out: StoreSnapshot = {};
  for (const [dir, size] of tree.directories) out[`dir ${dir}`] = String(size);
  for (const [path, content] of Object.entries(await probePaths(store, [...tree.files.keys(), ...probes]))) {
    out[`path ${path}`] = content;
  }
  return out;
}

/** The live files and bytes of a `usage()`: other figures a wrapper adds (history's bytes) left out. */
export const liveUsage = (usage: Usage): { files: number; bytes: number } => ({
  files: usage.files,
  bytes: usage.bytes,
});
