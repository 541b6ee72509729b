/** The reference store: everything in process memory, complete and concurrency-correct. */
import { AlreadyExistsError, ConflictError, NotADirectoryError, NotFoundError } from "./errors.js";
import type {
  FileData,
  Listing,
  MemoryStore,
  Stat,
  StoreCapabilities,
  StoredFile,
  Version,
  WriteCondition,
} from "./store.js";
import { ancestorsOf, isSameOrInside, listingFromFiles, ROOT, rebase } from "./tree.js";

interface Entry {
  data: Uint8Array;
  version: Version;
}

/**
 * A `MemoryStore` held in a `Map`. Every method runs its checks and its change in one synchronous step,
 * so concurrent commands on one instance behave as if run one after another. Useful for tests and as
 * the model every other store is measured against.
 *
 * @example
 * ```ts
 * import { executeCommand, InMemoryStore } from "@mem/core";
 * const store = new InMemoryStore();
 * await executeCommand(store, { command: "create", path: "/memories/todo.md", file_text: "- [ ] ship\n" });
 * ```
 */
export class InMemoryStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = { crossProcessSafe: false, atomicDirectoryRename: true };
  readonly #files = new Map<string, Entry>();
  /** How many files lie beneath each existing directory (implicit directories, SPEC §3). */
  readonly #dirs = new Map<string, number>();
  #clock = 0;

  async read(path: string): Promise<FileData | null> {
    const entry = this.#files.get(path);
    return entry ? { data: entry.data.slice(), version: entry.version } : null;
  }

  async stat(path: string): Promise<Stat | null> {
    if (path === ROOT || this.#dirs.has(path)) return { kind: "directory" };
    const entry = this.#files.get(path);
    return entry ? { kind: "file", size: entry.data.byteLength } : null;
  }

  async list(dir: string, depth: number): Promise<Listing | null> {
    if (dir !== ROOT && !this.#dirs.has(dir)) return null;
    const files = [...this.#files].map(([path, entry]) => ({ path, size: entry.data.byteLength }));
    return listingFromFiles(dir, files, depth);
  }

  async files(): Promise<StoredFile[]> {
    return [...this.#files].map(([path, entry]) => ({ path, size: entry.data.byteLength }));
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    this.#checkAncestors(path);
    const current = this.#files.get(path);
    if ("ifAbsent" in condition) {
      if (current || this.#dirs.has(path)) throw new AlreadyExistsError(path);
    } else if (!current || current.version !== condition.ifVersion) {
      throw new ConflictError(path);
    }
    const version = this.#nextVersion();
    if (!current) this.#countFile(path, 1);
    this.#files.set(path, { data: data.slice(), version });
    return { version };
  }

  async delete(path: string): Promise<boolean> {
    const targets = [...this.#files.keys()].filter((p) => isSameOrInside(p, path));
    for (const p of targets) {
      this.#files.delete(p);
      this.#countFile(p, -1);
    }
    return targets.length > 0;
  }

  async rename(from: string, to: string): Promise<void> {
    const moving = [...this.#files].filter(([p]) => isSameOrInside(p, from));
    if (moving.length === 0) throw new NotFoundError(from);
    if (this.#files.has(to) || this.#dirs.has(to) || to === ROOT) throw new AlreadyExistsError(to);
    this.#checkAncestors(to);
    for (const [p] of moving) {
      this.#files.delete(p);
      this.#countFile(p, -1);
    }
    for (const [p, entry] of moving) {
      const target = rebase(p, from, to);
      this.#files.set(target, entry);
      this.#countFile(target, 1);
    }
  }

  #checkAncestors(path: string): void {
    for (const ancestor of ancestorsOf(path).reverse()) {
      if (this.#files.has(ancestor)) throw new NotADirectoryError(path, ancestor);
    }
  }

  #countFile(path: string, delta: 1 | -1): void {
    for (const dir of ancestorsOf(path)) {
      if (dir === ROOT) continue;
      const count = (this.#dirs.get(dir) ?? 0) + delta;
      if (count > 0) this.#dirs.set(dir, count);
      else this.#dirs.delete(dir);
    }
  }

  #nextVersion(): Version {
    this.#clock += 1;
    return String(this.#clock);
  }
}
