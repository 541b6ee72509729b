/**
 * A complete memory store in about 80 lines: files in a `Map` from canonical path to bytes. Directories
 * are implicit (a directory exists while a file lies beneath it), as SPEC §3 describes. Every method
 * does its checks and its change in one synchronous step, so concurrent commands on one instance never
 * interleave, and the conditional writes hold.
 */
import {
  AlreadyExistsError,
  ancestorsOf,
  ConflictError,
  type FileData,
  isSameOrInside,
  type Listing,
  listingFromFiles,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
  ROOT,
  rebase,
  type Stat,
  type StoreCapabilities,
  type Version,
  type WriteCondition,
} from "@mem/core";

interface Entry {
  data: Uint8Array;
  version: Version;
}

export class MapStore implements MemoryStore {
  readonly capabilities: StoreCapabilities = { crossProcessSafe: false, atomicDirectoryRename: true };
  readonly #files = new Map<string, Entry>();
  #versions = 0;

  async read(path: string): Promise<FileData | null> {
    const entry = this.#files.get(path);
    return entry ? { data: entry.data.slice(), version: entry.version } : null;
  }

  async stat(path: string): Promise<Stat | null> {
    if (this.#isDirectory(path)) return { kind: "directory" };
    const entry = this.#files.get(path);
    return entry ? { kind: "file", size: entry.data.byteLength } : null;
  }

  async list(dir: string, depth: number): Promise<Listing | null> {
    if (!this.#isDirectory(dir)) return null;
    const files = [...this.#files].map(([path, entry]) => ({ path, size: entry.data.byteLength }));
    return listingFromFiles(dir, files, depth);
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    this.#checkAncestors(path);
    const current = this.#files.get(path);
    if ("ifAbsent" in condition) {
      if (current || this.#isDirectory(path)) throw new AlreadyExistsError(path);
    } else if (current?.version !== condition.ifVersion) {
      throw new ConflictError(path);
    }
    const version = String(++this.#versions);
    this.#files.set(path, { data: data.slice(), version });
    return { version };
  }

  async delete(path: string): Promise<boolean> {
    const targets = [...this.#files.keys()].filter((p) => isSameOrInside(p, path));
    for (const p of targets) this.#files.delete(p);
    return targets.length > 0;
  }

  async rename(from: string, to: string): Promise<void> {
    const moving = [...this.#files].filter(([p]) => isSameOrInside(p, from));
    if (moving.length === 0) throw new NotFoundError(from);
    if (this.#files.has(to) || this.#isDirectory(to)) throw new AlreadyExistsError(to);
    this.#checkAncestors(to);
    for (const [p] of moving) this.#files.delete(p);
    for (const [p, entry] of moving) this.#files.set(rebase(p, from, to), entry);
  }

  #isDirectory(path: string): boolean {
    if (path === ROOT) return true;
    for (const p of this.#files.keys()) if (p !== path && isSameOrInside(p, path)) return true;
    return false;
  }

  /** A file where a directory of `path` should be: writing below it is refused. */
  #checkAncestors(path: string): void {
    for (const ancestor of ancestorsOf(path).reverse()) {
      if (this.#files.has(ancestor)) throw new NotADirectoryError(path, ancestor);
    }
  }
}
