/**
 * Every command as synchronous statements on one connection, run inside a transaction its caller opened
 * (see batch.ts). Paths, tenants and contents reach SQL only as bound parameters.
 */
import {
  ancestorsOf,
  type FileOrListing,
  isListedName,
  type ListEntry,
  type Listing,
  nameOf,
  parentOf,
  ROOT,
  type SearchFile,
  type Stat,
  type StoredFile,
  type SweepResult,
  type Usage,
} from "@mem/core";
import type Database from "better-sqlite3";
import type { Failure, Request, Results } from "./protocol.js";
import { phraseOf } from "./search.js";

/** A failure the engine reports as data; batch.ts rolls back the request's savepoint and answers with it. */
export class EngineFailure extends Error {
  constructor(readonly failure: Failure) {
    super(failure.type);
  }
}

/** View's sibling order as bytes: the name in UTF-16BE, whose byte order is the code-unit order. */
const sortKey = (name: string): Buffer => Buffer.from(name, "utf16le").swap16();

const rawBytes = (data: Uint8Array): Buffer => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

/** A subtree's totals, as added to (or taken from) each ancestor. */
interface Totals {
  files: number;
  bytes: number;
  size: number;
  shown: number;
}

interface Row {
  kind: "f" | "d" | "r";
  size: number;
  shown: number;
  files: number;
  bytes: number;
}

interface ChildRow {
  path: string;
  kind: "f" | "d";
  size: number;
  shown: number;
}

/** `[path + "/", path + "0")`: every path beneath `path` in byte order ("0" follows "/"). */
const below = (path: string): [string, string] => [`${path}/`, `${path}0`];

import { fenced, lowerFence, raiseFence } from "./fence.js";
import { listTenants, purgeTenant } from "./tenants.js";

export class Engine {
  readonly #statements = new Map<string, Database.Statement>();

  constructor(readonly db: Database.Database) {}

  run(request: Request): Results[Request["op"]] {
    // Expired files are gone for every command; sweep() reclaims them itself to report them.
    if (request.cutoff !== null && request.op !== "sweep") this.#reclaim(request.tenant, request.cutoff);
    const { tenant } = request;
    if (
      (request.op === "write" || request.op === "delete" || request.op === "rename") &&
      fenced((text) => this.#sql(text), tenant)
    ) {
      throw new EngineFailure({ type: "erasing", path: request.path });
    }
    switch (request.op) {
      case "read":
        return this.#read(tenant, request.path, request.now, request.cutoff !== null);
      case "readIf":
        return this.#readIf(tenant, request.path, request.known, request.now, request.cutoff !== null);
      case "stat":
        return this.#stat(tenant, request.path);
      case "list":
        return this.#list(tenant, request.path, request.depth, request.limit, request.countFiles);
      case "readOrList": {
        const row = this.#row(tenant, request.path);
        if (row?.kind === "f") {
          const file = this.#read(tenant, request.path, request.now, request.cutoff !== null);
          return file ? ({ kind: "file", file } satisfies FileOrListing) : null;
        }
        const listing = this.#list(tenant, request.path, request.depth, request.limit, request.countFiles);
        return listing ? ({ kind: "directory", listing } satisfies FileOrListing) : null;
      }
      case "write":
        return { version: this.#write(tenant, request.path, request.data, request.ifVersion, request.now) };
      case "delete":
        return this.#delete(tenant, request.path);
      case "rename":
        this.#rename(tenant, request.path, request.to, request.now);
        return undefined;
      case "usage":
        return this.#usage(tenant);
      case "files":
        return this.#files(tenant);
      case "search":
        return this.#search(tenant, request.path, request.needle);
      case "sweep":
        return request.cutoff === null ? { paths: [], bytes: 0 } : this.#sweep(tenant, request.cutoff);
      case "check":
        this.#sql("SELECT value FROM mem_meta WHERE key = 'schema'").get();
        return undefined;
      case "tenants":
        return listTenants((text) => this.#sql(text), tenant, request.after ?? undefined, request.limit);
      case "fence":
        raiseFence((text) => this.#sql(text), tenant);
        return undefined;
      case "purge": {
        const purged = purgeTenant(this.db, (text) => this.#sql(text), tenant, request.dryRun);
        if (!request.dryRun) lowerFence((text) => this.#sql(text), tenant);
        return purged;
      }
    }
  }

  #sql(text: string): Database.Statement {
    let statement = this.#statements.get(text);
    if (!statement) {
      // Numbers, whatever `defaultSafeIntegers` the application set on a database it handed over.
      statement = this.db.prepare(text).safeIntegers(false);
      this.#statements.set(text, statement);
    }
    return statement;
  }

  #row(tenant: string, path: string): Row | undefined {
    return this.#sql(
      "SELECT kind, size, shown, files, bytes FROM mem_files WHERE tenant = ? AND path = ?",
    ).get(tenant, path) as Row | undefined;
  }

  #read(tenant: string, path: string, now: number, touch: boolean) {
    const row = this.#sql(
      "SELECT content, version FROM mem_files WHERE tenant = ? AND path = ? AND kind = 'f'",
    ).get(tenant, path) as { content: Buffer; version: number } | undefined;
    if (!row) return null;
    if (touch) {
      this.#sql("UPDATE mem_files SET accessed_at = ? WHERE tenant = ? AND path = ?").run(now, tenant, path);
    }
    // A view of the Buffer better-sqlite3 filled, not a copy of it: the thread hands its memory over.
    const { content } = row;
    return {
      data: new Uint8Array(content.buffer, content.byteOffset, content.byteLength),
      version: String(row.version),
    };
  }

  /** The file for a caller that holds its bytes at version `known` (versions are never given twice). */
  #readIf(tenant: string, path: string, known: string | null, now: number, touch: boolean) {
    const row = this.#sql("SELECT version FROM mem_files WHERE tenant = ? AND path = ? AND kind = 'f'").get(
      tenant,
      path,
    ) as { version: number } | undefined;
    if (!row) return null;
    if (String(row.version) !== known) return this.#read(tenant, path, now, touch);
    if (touch) {
      this.#sql("UPDATE mem_files SET accessed_at = ? WHERE tenant = ? AND path = ?").run(now, tenant, path);
    }
    return { version: known, data: null };
  }

  #stat(tenant: string, path: string): Stat | null {
    if (path === ROOT) return { kind: "directory" };
    const row = this.#row(tenant, path);
    if (!row) return null;
    return row.kind === "f" ? { kind: "file", size: row.size } : { kind: "directory" };
  }

  /**
   * Depth-first in view's order, one indexed query per directory shown, stopping at `limit` entries;
   * the rest are counted from the children index without reading their rows.
   */
  #list(
    tenant: string,
    dir: string,
    depth: number,
    limit: number | null,
    countFiles: boolean,
  ): Listing | null {
    const head = this.#row(tenant, dir);
    if (!head || head.kind === "f") {
      if (dir !== ROOT) return null;
    }
    const entries: ListEntry[] = [];
    const cap = limit ?? Number.POSITIVE_INFINITY;
    const children = this.#sql(
      `SELECT path, kind, size, shown FROM mem_files
        WHERE tenant = ? AND parent = ? AND listed = 1 ORDER BY sort LIMIT ?`,
    );
    const visit = (parent: string, level: number): void => {
      const rows = children.all(
        tenant,
        parent,
        Number.isFinite(cap) ? cap - entries.length : -1,
      ) as ChildRow[];
      for (const row of rows) {
        if (entries.length >= cap) return;
        const entry: ListEntry = {
          path: row.path,
          kind: row.kind === "f" ? "file" : "directory",
          size: row.size,
          depth: level,
        };
        if (countFiles && row.kind === "d") entry.files = row.shown;
        entries.push(entry);
        if (row.kind === "d" && level < depth) visit(row.path, level + 1);
      }
    };
    if (head || dir === ROOT) visit(dir, 1);
    const listing: Listing = { size: head?.size ?? 0, entries };
    if (countFiles) listing.files = head?.shown ?? 0;
    if (limit !== null && entries.length >= limit)
      listing.omitted = this.#count(tenant, dir, depth) - entries.length;
    return listing;
  }

  /** Listed entries within `depth` levels of `dir`, counted level by level from the children index. */
  #count(tenant: string, dir: string, depth: number): number {
    const count = this.#sql(
      "SELECT count(*) AS n FROM mem_files WHERE tenant = ? AND parent = ? AND listed = 1",
    );
    const subdirs = this.#sql(
      "SELECT path FROM mem_files WHERE tenant = ? AND parent = ? AND listed = 1 AND kind = 'd'",
    ).pluck();
    let total = 0;
    let level = [dir];
    for (let d = 1; d <= depth && level.length > 0; d++) {
      const next: string[] = [];
      for (const parent of level) {
        total += (count.get(tenant, parent) as { n: number }).n;
        if (d < depth) next.push(...(subdirs.all(tenant, parent) as string[]));
      }
      level = next;
    }
    return total;
  }

  #write(tenant: string, path: string, data: Uint8Array, ifVersion: string | null, now: number): string {
    const size = data.byteLength;
    if (ifVersion === null) {
      const ancestors = ancestorsOf(path);
      const blocking = this.#fileAmong(tenant, ancestors);
      if (blocking) throw new EngineFailure({ type: "notdir", path, ancestor: blocking });
      if (this.#row(tenant, path)) throw new EngineFailure({ type: "exists", path });
      const version = this.#nextVersion();
      const name = nameOf(path);
      this.#sql(
        `INSERT INTO mem_files (tenant, path, parent, sort, listed, kind, content, version, size, shown, files,
                                bytes, accessed_at)
         VALUES (?, ?, ?, ?, ?, 'f', ?, ?, ?, 1, 1, ?, ?)`,
      ).run(
        tenant,
        path,
        parentOf(path),
        sortKey(name),
        isListedName(name) ? 1 : 0,
        rawBytes(data),
        version,
        size,
        size,
        now,
      );
      this.#adjust(tenant, path, { files: 1, bytes: size, size, shown: 1 });
      return String(version);
    }
    // Versions are this store's decimal counters; anything else cannot match.
    const current = this.#sql(
      "SELECT version, size FROM mem_files WHERE tenant = ? AND path = ? AND kind = 'f'",
    ).get(tenant, path) as { version: number; size: number } | undefined;
    if (!current || !/^[0-9]{1,15}$/.test(ifVersion) || current.version !== Number(ifVersion)) {
      throw new EngineFailure({ type: "conflict", path });
    }
    const version = this.#nextVersion();
    this.#sql(
      `UPDATE mem_files SET content = ?, version = ?, size = ?, bytes = ?, accessed_at = ?
        WHERE tenant = ? AND path = ?`,
    ).run(rawBytes(data), version, size, size, now, tenant, path);
    const delta = size - current.size;
    if (delta !== 0) this.#adjust(tenant, path, { files: 0, bytes: delta, size: delta, shown: 0 });
    return String(version);
  }

  #nextVersion(): number {
    return this.#sql("UPDATE mem_meta SET value = value + 1 WHERE key = 'versions' RETURNING value")
      .pluck()
      .get() as number;
  }

  /** The one file among `paths`, if any (a file has no file among its own ancestors). */
  #fileAmong(tenant: string, paths: readonly string[]): string | undefined {
    const probe = this.#sql("SELECT kind FROM mem_files WHERE tenant = ? AND path = ?").pluck();
    for (const path of paths) {
      const kind = probe.get(tenant, path) as string | undefined;
      if (kind === "f") return path;
      // An existing directory has no file above it.
      if (kind !== undefined) return undefined;
    }
    return undefined;
  }

  /**
   * Adds a subtree's totals (negative to take them away) to every ancestor of `path`: directory rows
   * appear with their first file and go with their last; sizes count only for ancestors from which no
   * name on the way is hidden.
   */
  #adjust(tenant: string, path: string, totals: Totals): void {
    let hidden = false;
    let child = path;
    while (child !== ROOT) {
      hidden ||= !isListedName(nameOf(child));
      const dir = parentOf(child);
      const size = hidden ? 0 : totals.size;
      const shown = hidden ? 0 : totals.shown;
      if (dir === ROOT) {
        this.#sql(
          `INSERT INTO mem_files (tenant, path, kind, size, shown, files, bytes) VALUES (?, ?, 'r', ?, ?, ?, ?)
           ON CONFLICT (tenant, path) DO UPDATE SET size = size + excluded.size, shown = shown + excluded.shown,
             files = files + excluded.files, bytes = bytes + excluded.bytes`,
        ).run(tenant, ROOT, size, shown, totals.files, totals.bytes);
      } else if (totals.files > 0) {
        const name = nameOf(dir);
        this.#sql(
          `INSERT INTO mem_files (tenant, path, parent, sort, listed, kind, size, shown, files, bytes)
           VALUES (?, ?, ?, ?, ?, 'd', ?, ?, ?, ?)
           ON CONFLICT (tenant, path) DO UPDATE SET size = size + excluded.size, shown = shown + excluded.shown,
             files = files + excluded.files, bytes = bytes + excluded.bytes`,
        ).run(
          tenant,
          dir,
          parentOf(dir),
          sortKey(name),
          isListedName(name) ? 1 : 0,
          size,
          shown,
          totals.files,
          totals.bytes,
        );
      } else {
        const left = this.#sql(
          `UPDATE mem_files SET size = size + ?, shown = shown + ?, files = files + ?, bytes = bytes + ?
            WHERE tenant = ? AND path = ? RETURNING files`,
        )
          .pluck()
          .get(size, shown, totals.files, totals.bytes, tenant, dir) as number | undefined;
        if (left === 0) this.#sql("DELETE FROM mem_files WHERE tenant = ? AND path = ?").run(tenant, dir);
      }
      child = dir;
    }
  }

  #delete(tenant: string, path: string): boolean {
    if (path === ROOT) {
      const removed = this.#sql(
        "DELETE FROM mem_files WHERE tenant = ? AND path >= ? AND path < ? AND kind = 'f'",
      ).run(tenant, ...below(ROOT)).changes;
      this.#sql("DELETE FROM mem_files WHERE tenant = ? AND path >= ? AND path < ?").run(
        tenant,
        ...below(ROOT),
      );
      this.#sql(
        "UPDATE mem_files SET size = 0, shown = 0, files = 0, bytes = 0 WHERE tenant = ? AND path = ?",
      ).run(tenant, ROOT);
      return removed > 0;
    }
    const row = this.#row(tenant, path);
    if (!row) return false;
    this.#sql("DELETE FROM mem_files WHERE tenant = ? AND path = ?").run(tenant, path);
    if (row.kind === "d") {
      this.#sql("DELETE FROM mem_files WHERE tenant = ? AND path >= ? AND path < ?").run(
        tenant,
        ...below(path),
      );
    }
    this.#adjust(tenant, path, negate(row));
    return true;
  }

  #rename(tenant: string, from: string, to: string, now: number): void {
    const source = this.#row(tenant, from);
    if (!source || source.kind === "r") throw new EngineFailure({ type: "notfound", path: from });
    if (this.#row(tenant, to)) throw new EngineFailure({ type: "exists", path: to });
    if (to.startsWith(`${from}/`)) throw new EngineFailure({ type: "inside", path: from, to });
    const blocking = this.#fileAmong(tenant, ancestorsOf(to));
    if (blocking) throw new EngineFailure({ type: "notdir", path: to, ancestor: blocking });
    this.#adjust(tenant, from, negate(source));
    const name = nameOf(to);
    this.#sql(
      `UPDATE mem_files SET path = ?, parent = ?, sort = ?, listed = ?,
         accessed_at = CASE WHEN kind = 'f' THEN ? ELSE accessed_at END
       WHERE tenant = ? AND path = ?`,
    ).run(to, parentOf(to), sortKey(name), isListedName(name) ? 1 : 0, now, tenant, from);
    if (source.kind === "d") {
      const cut = from.length + 1;
      this.#sql(
        `UPDATE mem_files SET path = ? || substr(path, ?), parent = ? || substr(parent, ?),
           accessed_at = CASE WHEN kind = 'f' THEN ? ELSE accessed_at END
         WHERE tenant = ? AND path >= ? AND path < ?`,
      ).run(to, cut, to, cut, now, tenant, ...below(from));
    }
    this.#adjust(tenant, to, source);
  }

  #usage(tenant: string): Usage {
    const row = this.#row(tenant, ROOT);
    return { files: row?.files ?? 0, bytes: row?.bytes ?? 0 };
  }

  /** The files at or beneath `path` whose index form holds `needle`, through the trigram index. */
  #search(tenant: string, path: string, needle: string): SearchFile[] | null {
    const phrase = phraseOf(needle);
    if (phrase === null) return null;
    const [from, to] = below(path);
    const rows = this.#sql(
      `SELECT f.path AS path, f.content AS content FROM mem_search JOIN mem_files f ON f.id = mem_search.rowid
        WHERE mem_search MATCH ? AND f.tenant = ? AND f.kind = 'f' AND (f.path = ? OR (f.path >= ? AND f.path < ?))`,
    ).all(phrase, tenant, path, from, to) as { path: string; content: Buffer }[];
    return rows.map((row) => ({ path: row.path, data: new Uint8Array(row.content) }));
  }

  #files(tenant: string): StoredFile[] {
    return this.#sql("SELECT path, size FROM mem_files WHERE tenant = ? AND kind = 'f' ORDER BY path").all(
      tenant,
    ) as StoredFile[];
  }

  #sweep(tenant: string, cutoff: number): SweepResult {
    const removed = this.#reclaim(tenant, cutoff);
    return {
      paths: removed.map((file) => file.path).sort(),
      bytes: removed.reduce((sum, file) => sum + file.size, 0),
    };
  }

  /**
   * Removes the tenant's files last accessed before `cutoff`, oldest first, each found by one probe of
   * the access index: nothing but that probe when none has expired.
   */
  #reclaim(tenant: string, cutoff: number): StoredFile[] {
    const oldest = this.#sql(
      `SELECT path, size, accessed_at AS accessed FROM mem_files
        WHERE tenant = ? AND kind = 'f' ORDER BY accessed_at LIMIT 1`,
    );
    const removed: StoredFile[] = [];
    for (;;) {
      const row = oldest.get(tenant) as { path: string; size: number; accessed: number } | undefined;
      if (!row || row.accessed >= cutoff) return removed;
      this.#sql("DELETE FROM mem_files WHERE tenant = ? AND path = ?").run(tenant, row.path);
      this.#adjust(tenant, row.path, negate({ files: 1, bytes: row.size, size: row.size, shown: 1 }));
      removed.push({ path: row.path, size: row.size });
    }
  }
}

const negate = (totals: Totals): Totals => ({
  files: -totals.files,
  bytes: -totals.bytes,
  size: -totals.size,
  shown: -totals.shown,
});
