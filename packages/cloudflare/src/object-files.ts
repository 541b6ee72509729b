/**
 * The files of one Durable Object: a complete `MemoryStore` on the object's SQLite storage
 * (`ctx.storage.sql`). Every method is one synchronous run of statements, and the object runs one command
 * at a time, so each command is atomic without retries: a version can never change between a read and
 * the write that follows it.
 */
import {
  AlreadyExistsError,
  ancestorsOf,
  ConflictError,
  ErasingError,
  exceedsQuota,
  type FileData,
  type FileOrListing,
  isSameOrInside,
  type Listing,
  type ListOptions,
  listingFromFiles,
  type MemoryStore,
  NotADirectoryError,
  NotFoundError,
  QuotaExceededError,
  ROOT,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  type SweepResult,
  type Usage,
  type Version,
  type WriteCondition,
  type WriteQuota,
} from "@mem/core";
import { toStoreFailure } from "./failure.js";
import { below, bytesOf } from "./rows.js";

/** The part of `ctx.storage.sql` the object uses (`SqlStorage` of `@cloudflare/workers-types`). */
export interface SqlExec {
  exec(query: string, ...bindings: unknown[]): { toArray(): Record<string, unknown>[]; rowsWritten: number };
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS mem_files (
    path        TEXT PRIMARY KEY,
    content     BLOB NOT NULL,
    version     INTEGER NOT NULL,
    size        INTEGER NOT NULL,
    accessed_at INTEGER NOT NULL
  )`,
  "CREATE INDEX IF NOT EXISTS mem_files_access ON mem_files (accessed_at)",
  "CREATE TABLE IF NOT EXISTS mem_meta (key TEXT PRIMARY KEY, value)",
  "CREATE TABLE IF NOT EXISTS mem_tenants (id TEXT PRIMARY KEY)",
];

/**
 * What every request of the object carries from the Worker: the time (the Worker's clock, so a test's
 * fake clock reaches the object) and the expiry limit (`null`: files never expire).
 */
export interface RequestTime {
  readonly now: number;
  readonly expiryMs: number | null;
}

export class ObjectFiles implements MemoryStore {
  readonly backend = "durable-object";
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: true };
  readonly #sql: SqlExec;
  #time: RequestTime = { now: 0, expiryMs: null };

  constructor(sql: SqlExec) {
    this.#sql = sql;
    for (const statement of SCHEMA) sql.exec(statement);
  }

  /** Sets the time of the request about to run, and reclaims the files it finds expired (unless a sweep will). */
  begin(time: RequestTime, reclaim = true): void {
    this.#time = time;
    if (reclaim && time.expiryMs !== null) this.#reclaim();
  }

  /** Runs one statement; an error of the object's storage (its size limit, say) becomes core's, naming it. */
  #exec(
    query: string,
    ...bindings: unknown[]
  ): { toArray(): Record<string, unknown>[]; rowsWritten: number } {
    try {
      return this.#sql.exec(query, ...bindings);
    } catch (error) {
      throw toStoreFailure(error, "Durable Object");
    }
  }

  #rows(query: string, ...bindings: unknown[]): Record<string, unknown>[] {
    return this.#exec(query, ...bindings).toArray();
  }

  #cutoff(): number | null {
    return this.#time.expiryMs === null ? null : this.#time.now - this.#time.expiryMs;
  }

  #reclaim(): SweepResult {
    const cutoff = this.#cutoff();
    if (cutoff === null) return { paths: [], bytes: 0 };
    const gone = this.#rows("DELETE FROM mem_files WHERE accessed_at < ? RETURNING path, size", cutoff);
    return {
      paths: gone.map((row) => row.path as string).sort(),
      bytes: gone.reduce((sum, row) => sum + (row.size as number), 0),
    };
  }

  #nextVersion(): number {
    const row = this.#rows(
      "INSERT INTO mem_meta (key, value) VALUES ('versions', 1) ON CONFLICT (key) DO UPDATE SET value = value + 1 RETURNING value",
    )[0];
    return row?.value as number;
  }

  #touch(path: string): void {
    if (this.#time.expiryMs !== null) {
      this.#exec("UPDATE mem_files SET accessed_at = ? WHERE path = ?", this.#time.now, path);
    }
  }

  /** A purge has fenced this object (memory-object.ts): every change is refused until it ends. */
  #refuseWhileErasing(path: string): void {
    if (this.#rows("SELECT 1 FROM mem_meta WHERE key = 'fence'").length > 0) throw new ErasingError(path);
  }

  #file(path: string): { content: Uint8Array; version: number; size: number } | null {
    const row = this.#rows("SELECT content, version, size FROM mem_files WHERE path = ?", path)[0];
    return row
      ? { content: bytesOf(row.content), version: row.version as number, size: row.size as number }
      : null;
  }

  #isDirectory(path: string): boolean {
    if (path === ROOT) return true;
    const [from, to] = below(path);
    return this.#rows("SELECT 1 FROM mem_files WHERE path > ? AND path < ? LIMIT 1", from, to).length > 0;
  }

  /** The nearest ancestor of `path` that is a file, or `null`. */
  #fileAncestor(path: string): string | null {
    const ancestors = ancestorsOf(path).filter((a) => a !== ROOT);
    if (ancestors.length === 0) return null;
    // One JSON parameter, not one per level: the runtime allows 100 bound parameters to a statement.
    const found = this.#rows(
      "SELECT path FROM mem_files WHERE path IN (SELECT value FROM json_each(?))",
      JSON.stringify(ancestors),
    ).map((row) => row.path as string);
    return found.sort((a, b) => a.length - b.length)[0] ?? null;
  }

  async read(path: string): Promise<FileData | null> {
    const file = this.#file(path);
    if (!file) return null;
    this.#touch(path);
    return { data: file.content, version: String(file.version) };
  }

  async stat(path: string): Promise<Stat | null> {
    if (path === ROOT) return { kind: "directory" };
    const file = this.#rows("SELECT size FROM mem_files WHERE path = ?", path)[0];
    if (file) return { kind: "file", size: file.size as number };
    return this.#isDirectory(path) ? { kind: "directory" } : null;
  }

  async list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    if (dir !== ROOT && !this.#isDirectory(dir)) return null;
    const [from, to] = below(dir);
    const rows = this.#rows("SELECT path, size FROM mem_files WHERE path > ? AND path < ?", from, to);
    const files = rows.map((row) => ({ path: row.path as string, size: row.size as number }));
    return listingFromFiles(dir, files, depth, { countFiles: options?.countFiles === true });
  }

  async readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    const file = await this.read(path);
    if (file) return { kind: "file", file };
    const listing = await this.list(path, depth, options);
    return listing ? { kind: "directory", listing } : null;
  }

  async write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    return this.#write(path, data, condition, undefined);
  }

  async writeWithinQuota(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    return this.#write(path, data, condition, quota);
  }

  #write(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota | undefined,
  ): { version: Version } {
    this.#refuseWhileErasing(path);
    const current = this.#file(path);
    if ("ifAbsent" in condition) {
      if (current || this.#isDirectory(path)) throw new AlreadyExistsError(path);
    } else if (!current || String(current.version) !== condition.ifVersion) {
      throw new ConflictError(path);
    }
    const ancestor = this.#fileAncestor(path);
    if (ancestor) throw new NotADirectoryError(path, ancestor);
    if (quota) {
      const usage = this.#usage();
      if (exceedsQuota(quota, usage, data.byteLength, current ? current.size : null)) {
        throw new QuotaExceededError(path, usage);
      }
    }
    const version = this.#nextVersion();
    this.#exec(
      `INSERT INTO mem_files (path, content, version, size, accessed_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (path) DO UPDATE SET content = excluded.content, version = excluded.version,
         size = excluded.size, accessed_at = excluded.accessed_at`,
      path,
      data,
      version,
      data.byteLength,
      this.#time.now,
    );
    return { version: String(version) };
  }

  async update(path: string, change: (current: Uint8Array) => Uint8Array | null): Promise<boolean> {
    const file = this.#file(path);
    if (!file) return false;
    this.#touch(path);
    const next = change(file.content);
    if (next) this.#write(path, next, { ifVersion: String(file.version) }, undefined);
    return true;
  }

  async delete(path: string): Promise<boolean> {
    if (path === ROOT) return false;
    this.#refuseWhileErasing(path);
    const [from, to] = below(path);
    const removed = this.#exec(
      "DELETE FROM mem_files WHERE path = ? OR (path > ? AND path < ?)",
      path,
      from,
      to,
    );
    return removed.rowsWritten > 0;
  }

  async rename(from: string, to: string): Promise<void> {
    this.#refuseWhileErasing(from);
    const isFile = this.#file(from) !== null;
    if (!isFile && !this.#isDirectory(from)) throw new NotFoundError(from);
    if (this.#file(to) || this.#isDirectory(to)) throw new AlreadyExistsError(to);
    const ancestor = this.#fileAncestor(to);
    if (ancestor && !isSameOrInside(ancestor, from)) throw new NotADirectoryError(to, ancestor);
    const [low, high] = below(from);
    this.#exec(
      `UPDATE mem_files SET path = ? || substr(path, ?), accessed_at = ?
       WHERE path = ? OR (path > ? AND path < ?)`,
      to,
      from.length + 1,
      this.#time.now,
      from,
      low,
      high,
    );
  }

  #usage(): Usage {
    const row = this.#rows("SELECT count(*) AS files, coalesce(sum(size), 0) AS bytes FROM mem_files")[0];
    return { files: (row?.files as number) ?? 0, bytes: (row?.bytes as number) ?? 0 };
  }

  async usage(): Promise<Usage> {
    return this.#usage();
  }

  async files(): Promise<StoredFile[]> {
    return this.#rows("SELECT path, size FROM mem_files ORDER BY path").map((row) => ({
      path: row.path as string,
      size: row.size as number,
    }));
  }

  async sweep(): Promise<SweepResult> {
    return this.#reclaim();
  }

  /** The oldest access of a file, for the object's expiry alarm; `null` when it holds no file. */
  oldestAccess(): number | null {
    const row = this.#rows("SELECT min(accessed_at) AS oldest FROM mem_files")[0];
    return (row?.oldest as number | null | undefined) ?? null;
  }

  /** Files and bytes held, with the newest access: the object's line in its parent's `tenants()`. */
  totals(): { files: number; bytes: number; lastAccess: number } {
    const row = this.#rows(
      "SELECT count(*) AS files, coalesce(sum(size), 0) AS bytes, coalesce(max(accessed_at), 0) AS last FROM mem_files",
    )[0];
    return {
      files: (row?.files as number) ?? 0,
      bytes: (row?.bytes as number) ?? 0,
      lastAccess: (row?.last as number) ?? 0,
    };
  }
}
