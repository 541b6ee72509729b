/**
 * The state and rules of the scripted Memory Stores API: memory stores, their memories and memory
 * versions, with the checks the SDK's type declarations document (see the README for which rules are
 * documented and which are inferred). No HTTP here: `http.ts` turns requests into calls of this model.
 */
import { createHash } from "node:crypto";

/** Who made a change, as the API records it in `created_by` / `redacted_by`. */
export type ScriptedActor =
  | { type: "api_actor"; api_key_id: string }
  | { type: "session_actor"; session_id: string }
  | { type: "user_actor"; user_id: string }
  | { type: "service_account_actor"; service_account_id: string };

export interface MemoryRecord {
  id: string;
  memory_store_id: string;
  path: string;
  content: string;
  content_sha256: string;
  content_size_bytes: number;
  created_at: string;
  updated_at: string;
  memory_version_id: string;
}

export interface VersionRecord {
  id: string;
  memory_id: string;
  memory_store_id: string;
  operation: "created" | "modified" | "deleted";
  created_at: string;
  created_by: ScriptedActor | null;
  content: string | null;
  content_sha256: string | null;
  content_size_bytes: number | null;
  path: string | null;
  redacted_at: string | null;
  redacted_by: ScriptedActor | null;
}

export interface StoreRecord {
  id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
  memories: Map<string, MemoryRecord>;
  /** path → memory id */
  paths: Map<string, string>;
  versions: VersionRecord[];
}

/** A failure the API answers with: HTTP status and the `error` object of the body. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: { type: string; message: string; [field: string]: unknown },
  ) {
    super(error.message);
  }
}

/** The documented largest content: 100 kB. */
export const MAX_CONTENT_BYTES = 102_400;
/** The documented most segments of a path. */
export const MAX_SEGMENTS = 20;
/** The documented longest path in UTF-8 bytes. */
export const MAX_PATH_BYTES = 1024;

const encoder = new TextEncoder();
const byteLength = (text: string): number => encoder.encode(text).byteLength;
export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

const invalid = (message: string): ApiError => new ApiError(400, { type: "invalid_request_error", message });
const notFound = (message: string): ApiError => new ApiError(404, { type: "not_found_error", message });

// Cc (controls), Cf (format characters), and the line and paragraph separators.
const REFUSED = /[\p{Cc}\p{Cf}\u2028\u2029]/u;
const LONE_SURROGATE = /\p{Cs}/u;

/** The documented path rules: `/` first, 1 to 20 segments, none empty, `.` or `..`, no refused character, NFC. */
export const pathProblem = (path: unknown): string | null => {
  if (typeof path !== "string") return "path must be a string";
  if (!path.startsWith("/")) return "path must start with /";
  if (byteLength(path) > MAX_PATH_BYTES) return `path must be at most ${MAX_PATH_BYTES} bytes`;
  const segments = path.slice(1).split("/");
  if (segments.length > MAX_SEGMENTS) return `path must have at most ${MAX_SEGMENTS} segments`;
  if (segments.some((s) => s === "")) return "path segments must not be empty";
  if (segments.some((s) => s === "." || s === "..")) return "path segments must not be . or ..";
  if (REFUSED.test(path) || LONE_SURROGATE.test(path)) return "path contains a character that is not allowed";
  if (path.normalize("NFC") !== path) return "path must be in Unicode Normalization Form C";
  return null;
};

const contentProblem = (content: unknown): string | null => {
  if (typeof content !== "string") return "content must be a string";
  if (LONE_SURROGATE.test(content)) return "content must be valid UTF-8";
  if (byteLength(content) > MAX_CONTENT_BYTES) return `content must be at most ${MAX_CONTENT_BYTES} bytes`;
  return null;
};

const overlaps = (a: string, b: string): boolean => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/** Byte order of UTF-8, the order the scripted API lists paths in. */
export const compareBytes = (a: string, b: string): number => Buffer.compare(Buffer.from(a), Buffer.from(b));

export class MemoryStoresModel {
  readonly stores = new Map<string, StoreRecord>();
  #next = 0;
  readonly #clock: () => number;

  constructor(clock: () => number = Date.now) {
    this.#clock = clock;
  }

  #id(prefix: string): string {
    this.#next += 1;
    return `${prefix}_${String(this.#next).padStart(8, "0")}${createHash("sha256").update(`${prefix}${this.#next}`).digest("hex").slice(0, 16)}`;
  }

  #now(): string {
    return new Date(this.#clock()).toISOString();
  }

  createStore(name: string, description: string | null = null): StoreRecord {
    const now = this.#now();
    const store: StoreRecord = {
      id: this.#id("memstore"),
      name,
      description,
      created_at: now,
      updated_at: now,
      archived_at: null,
      memories: new Map(),
      paths: new Map(),
      versions: [],
    };
    this.stores.set(store.id, store);
    return store;
  }

  store(id: string): StoreRecord {
    const store = this.stores.get(id);
    if (!store) throw notFound(`memory store ${id} not found`);
    return store;
  }

  deleteStore(id: string): void {
    this.store(id);
    this.stores.delete(id);
  }

  memory(store: StoreRecord, id: string): MemoryRecord {
    const memory = store.memories.get(id);
    if (!memory) throw notFound(`memory ${id} not found`);
    return memory;
  }

  #pathConflict(store: StoreRecord, path: string, self?: string): void {
    for (const [other, id] of store.paths) {
      if (id !== self && overlaps(path, other))
        throw new ApiError(409, {
          type: "memory_path_conflict_error",
          message: `the path ${path} conflicts with the memory at ${other}`,
          conflicting_path: other,
          conflicting_memory_id: id,
        });
    }
  }

  #version(
    store: StoreRecord,
    memory: MemoryRecord,
    operation: VersionRecord["operation"],
    actor: ScriptedActor | null,
  ): VersionRecord {
    const deleted = operation === "deleted";
    const version: VersionRecord = {
      id: this.#id("memver"),
      memory_id: memory.id,
      memory_store_id: store.id,
      operation,
      created_at: this.#now(),
      created_by: actor,
      content: deleted ? null : memory.content,
      content_sha256: deleted ? null : memory.content_sha256,
      content_size_bytes: deleted ? null : memory.content_size_bytes,
      path: memory.path,
      redacted_at: null,
      redacted_by: null,
    };
    store.versions.push(version);
    memory.memory_version_id = version.id;
    return version;
  }

  create(store: StoreRecord, body: { path?: unknown; content?: unknown }, actor: ScriptedActor | null) {
    const problem = pathProblem(body.path) ?? contentProblem(body.content ?? "");
    if (problem) throw invalid(problem);
    const path = body.path as string;
    const content = (body.content ?? "") as string;
    this.#pathConflict(store, path);
    const now = this.#now();
    const memory: MemoryRecord = {
      id: this.#id("mem"),
      memory_store_id: store.id,
      path,
      content,
      content_sha256: sha256(content),
      content_size_bytes: byteLength(content),
      created_at: now,
      updated_at: now,
      memory_version_id: "",
    };
    store.memories.set(memory.id, memory);
    store.paths.set(path, memory.id);
    this.#version(store, memory, "created", actor);
    return memory;
  }

  update(
    store: StoreRecord,
    id: string,
    body: { path?: unknown; content?: unknown; precondition?: unknown },
    actor: ScriptedActor | null,
  ): MemoryRecord {
    const memory = this.memory(store, id);
    const path = body.path ?? null;
    const content = body.content ?? null;
    if (path !== null) {
      const problem = pathProblem(path);
      if (problem) throw invalid(problem);
    }
    if (content !== null) {
      const problem = contentProblem(content);
      if (problem) throw invalid(problem);
    }
    const newPath = (path ?? memory.path) as string;
    const newContent = (content ?? memory.content) as string;
    const unchanged = newPath === memory.path && newContent === memory.content;
    const precondition = body.precondition as { type?: unknown; content_sha256?: unknown } | undefined;
    if (precondition !== undefined && precondition !== null) {
      if (typeof precondition !== "object" || precondition.type !== "content_sha256")
        throw invalid("precondition.type must be content_sha256");
      // Documented: a request that finds exactly its own content and path succeeds whatever the hash.
      if (precondition.content_sha256 !== memory.content_sha256 && !unchanged)
        throw new ApiError(409, {
          type: "memory_precondition_failed_error",
          message: "the memory's content_sha256 does not match the precondition",
        });
    }
    if (unchanged) return memory;
    if (newPath !== memory.path) this.#pathConflict(store, newPath, memory.id);
    store.paths.delete(memory.path);
    memory.path = newPath;
    store.paths.set(newPath, memory.id);
    memory.content = newContent;
    memory.content_sha256 = sha256(newContent);
    memory.content_size_bytes = byteLength(newContent);
    memory.updated_at = this.#now();
    this.#version(store, memory, "modified", actor);
    return memory;
  }

  delete(store: StoreRecord, id: string, expected: string | undefined, actor: ScriptedActor | null): void {
    const memory = this.memory(store, id);
    if (expected !== undefined && expected !== memory.content_sha256)
      throw new ApiError(409, {
        type: "memory_precondition_failed_error",
        message: "the memory's content_sha256 does not match expected_content_sha256",
      });
    store.memories.delete(id);
    store.paths.delete(memory.path);
    this.#version(store, memory, "deleted", actor);
  }

  /**
   * The memories at or below `prefix` in path order, memories deeper than `depth` segments below it rolled
   * up into one `memory_prefix` item per directory (depth 0: no roll-up).
   */
  list(
    store: StoreRecord,
    prefix: string,
    depth: number,
  ): Array<{ kind: "memory"; memory: MemoryRecord } | { kind: "prefix"; path: string }> {
    const paths = [...store.paths.keys()].filter((p) => p.startsWith(prefix)).sort(compareBytes);
    const out: Array<{ kind: "memory"; memory: MemoryRecord } | { kind: "prefix"; path: string }> = [];
    let lastPrefix = "";
    for (const path of paths) {
      const below = path.slice(prefix.length).split("/");
      if (depth > 0 && below.length > depth) {
        const rolled = `${prefix}${below.slice(0, depth).join("/")}/`;
        if (rolled !== lastPrefix) out.push({ kind: "prefix", path: rolled });
        lastPrefix = rolled;
        continue;
      }
      out.push({
        kind: "memory",
        memory: store.memories.get(store.paths.get(path) as string) as MemoryRecord,
      });
    }
    return out;
  }

  version(store: StoreRecord, id: string): VersionRecord {
    const version = store.versions.find((v) => v.id === id);
    if (!version) throw notFound(`memory version ${id} not found`);
    return version;
  }

  redact(store: StoreRecord, id: string, actor: ScriptedActor | null): VersionRecord {
    const version = this.version(store, id);
    const live = store.memories.get(version.memory_id);
    if (live && live.memory_version_id === version.id)
      throw new ApiError(409, {
        type: "conflict_error",
        message: "the current version of a memory cannot be redacted; update or delete the memory first",
      });
    if (version.redacted_at !== null) return version;
    version.redacted_at = this.#now();
    version.redacted_by = actor;
    version.content = null;
    version.content_sha256 = null;
    version.content_size_bytes = null;
    version.path = null;
    return version;
  }
}
