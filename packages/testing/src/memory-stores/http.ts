/**
 * The HTTP face of the scripted Memory Stores API: routes, query and body parsing, paging with cursors,
 * the `view` parameter, the beta header, and the error bodies the SDK turns into its error classes.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  ApiError,
  type MemoryRecord,
  type MemoryStoresModel,
  type ScriptedActor,
  type StoreRecord,
  type VersionRecord,
} from "./model.js";

/** Either beta name the declarations accept for these endpoints. */
export const MEMORY_STORES_BETAS = ["agent-memory-2026-07-22", "managed-agents-2026-04-01"] as const;

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const MAX_FULL_LIMIT = 20;

export interface Route {
  method: string;
  /** The path with ids replaced by `{id}`, for counting requests by kind. */
  route: string;
  url: URL;
  body: Record<string, unknown>;
  actor: ScriptedActor | null;
}

type Handler = (
  model: MemoryStoresModel,
  request: Route,
  ids: string[],
) => { status?: number; body: unknown };

const memoryOut = (memory: MemoryRecord, full: boolean) => ({
  type: "memory",
  id: memory.id,
  memory_store_id: memory.memory_store_id,
  path: memory.path,
  content: full ? memory.content : null,
  content_sha256: memory.content_sha256,
  content_size_bytes: memory.content_size_bytes,
  memory_version_id: memory.memory_version_id,
  created_at: memory.created_at,
  updated_at: memory.updated_at,
});

const versionOut = (version: VersionRecord, full: boolean) => ({
  type: "memory_version",
  ...version,
  content: full ? version.content : null,
});

const storeOut = (store: StoreRecord) => ({
  type: "memory_store",
  id: store.id,
  name: store.name,
  description: store.description ?? "",
  metadata: {},
  created_at: store.created_at,
  updated_at: store.updated_at,
  archived_at: store.archived_at,
});

const invalid = (message: string) => new ApiError(400, { type: "invalid_request_error", message });

const viewOf = (url: URL, fallback: "basic" | "full"): boolean => {
  const view = url.searchParams.get("view") ?? fallback;
  if (view !== "basic" && view !== "full") throw invalid("view must be basic or full");
  return view === "full";
};

const integer = (url: URL, name: string, fallback: number, min: number, max: number): number => {
  const raw = url.searchParams.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw invalid(`${name} must be an integer from ${min} to ${max}`);
  return value;
};

/** One page of `items`: the cursor is the index of the page's first item, opaque to clients. */
const page = <T>(url: URL, items: T[], full: boolean) => {
  const limit = integer(url, "limit", DEFAULT_LIMIT, 1, full ? MAX_FULL_LIMIT : MAX_LIMIT);
  const cursor = url.searchParams.get("page");
  let start = 0;
  if (cursor !== null) {
    const decoded = /^c([0-9]+)$/.exec(Buffer.from(cursor, "base64url").toString());
    if (!decoded) throw invalid("page is not a valid cursor");
    start = Number(decoded[1]);
  }
  const data = items.slice(start, start + limit);
  const next = start + limit < items.length ? Buffer.from(`c${start + limit}`).toString("base64url") : null;
  return { data, next_page: next };
};

const createMemory: Handler = (model, request, [storeId]) => {
  const store = model.store(storeId as string);
  if (store.archived_at !== null) throw invalid("the memory store is archived");
  const memory = model.create(store, request.body, request.actor);
  return { body: memoryOut(memory, viewOf(request.url, "basic")) };
};

const listMemories: Handler = (model, request, [storeId]) => {
  const store = model.store(storeId as string);
  const full = viewOf(request.url, "basic");
  const prefix = request.url.searchParams.get("path_prefix") ?? "/";
  if (!prefix.startsWith("/") || !prefix.endsWith("/"))
    throw invalid("path_prefix must start and end with /");
  const depth = integer(request.url, "depth", 0, 0, 20);
  const items = model
    .list(store, prefix, depth)
    .map((item) =>
      item.kind === "memory" ? memoryOut(item.memory, full) : { type: "memory_prefix", path: item.path },
    );
  return { body: page(request.url, items, full) };
};

const retrieveMemory: Handler = (model, request, [storeId, id]) => {
  const store = model.store(storeId as string);
  return { body: memoryOut(model.memory(store, id as string), viewOf(request.url, "full")) };
};

const updateMemory: Handler = (model, request, [storeId, id]) => {
  const store = model.store(storeId as string);
  if (store.archived_at !== null) throw invalid("the memory store is archived");
  const memory = model.update(store, id as string, request.body, request.actor);
  return { body: memoryOut(memory, viewOf(request.url, "basic")) };
};

const deleteMemory: Handler = (model, request, [storeId, id]) => {
  const store = model.store(storeId as string);
  const expected = request.url.searchParams.get("expected_content_sha256") ?? undefined;
  if (expected !== undefined && !/^[0-9a-f]{64}$/.test(expected))
    throw invalid("expected_content_sha256 must be 64 lowercase hexadecimal characters");
  model.delete(store, id as string, expected, request.actor);
  return { body: { type: "memory_deleted", id } };
};

const ACTOR_FILTERS = [
  ["api_key_id", "api_key_id"],
  ["session_id", "session_id"],
  ["service_account_id", "service_account_id"],
] as const;

const listVersions: Handler = (model, request, [storeId]) => {
  const store = model.store(storeId as string);
  const full = viewOf(request.url, "basic");
  const q = request.url.searchParams;
  const after = q.get("created_at[gte]");
  const before = q.get("created_at[lte]");
  const items = store.versions
    .filter((v) => {
      if (q.has("memory_id") && v.memory_id !== q.get("memory_id")) return false;
      if (q.has("operation") && v.operation !== q.get("operation")) return false;
      for (const [param, field] of ACTOR_FILTERS) {
        const actor = v.created_by as Record<string, unknown> | null;
        if (q.has(param) && actor?.[field] !== q.get(param)) return false;
      }
      if (after !== null && v.created_at < after) return false;
      if (before !== null && v.created_at > before) return false;
      return true;
    })
    .reverse()
    .map((v) => versionOut(v, full));
  return { body: page(request.url, items, full) };
};

const retrieveVersion: Handler = (model, request, [storeId, id]) => {
  const store = model.store(storeId as string);
  return { body: versionOut(model.version(store, id as string), viewOf(request.url, "full")) };
};

const redactVersion: Handler = (model, request, [storeId, id]) => {
  const store = model.store(storeId as string);
  return { body: versionOut(model.redact(store, id as string, request.actor), false) };
};

const createStore: Handler = (model, request) => {
  const name = request.body.name;
  if (typeof name !== "string" || name.length < 1 || name.length > 255)
    throw invalid("name must be 1 to 255 characters");
  const description = typeof request.body.description === "string" ? request.body.description : null;
  return { body: storeOut(model.createStore(name, description)) };
};

const ROUTES: Array<[string, RegExp, string, Handler]> = [
  ["POST", /^\/v1\/memory_stores$/, "POST /v1/memory_stores", createStore],
  [
    "GET",
    /^\/v1\/memory_stores\/([^/]+)$/,
    "GET /v1/memory_stores/{id}",
    (m, _r, [id]) => ({
      body: storeOut(m.store(id as string)),
    }),
  ],
  [
    "DELETE",
    /^\/v1\/memory_stores\/([^/]+)$/,
    "DELETE /v1/memory_stores/{id}",
    (m, _r, [id]) => {
      m.deleteStore(id as string);
      return { body: { type: "memory_store_deleted", id } };
    },
  ],
  ["POST", /^\/v1\/memory_stores\/([^/]+)\/memories$/, "POST memories", createMemory],
  ["GET", /^\/v1\/memory_stores\/([^/]+)\/memories$/, "GET memories", listMemories],
  ["GET", /^\/v1\/memory_stores\/([^/]+)\/memories\/([^/]+)$/, "GET memories/{id}", retrieveMemory],
  ["POST", /^\/v1\/memory_stores\/([^/]+)\/memories\/([^/]+)$/, "POST memories/{id}", updateMemory],
  ["DELETE", /^\/v1\/memory_stores\/([^/]+)\/memories\/([^/]+)$/, "DELETE memories/{id}", deleteMemory],
  ["GET", /^\/v1\/memory_stores\/([^/]+)\/memory_versions$/, "GET memory_versions", listVersions],
  [
    "GET",
    /^\/v1\/memory_stores\/([^/]+)\/memory_versions\/([^/]+)$/,
    "GET memory_versions/{id}",
    retrieveVersion,
  ],
  [
    "POST",
    /^\/v1\/memory_stores\/([^/]+)\/memory_versions\/([^/]+)\/redact$/,
    "POST memory_versions/{id}/redact",
    redactVersion,
  ],
];

/** The route of a request (`POST memories/{id}`...), or `null` when no endpoint has its method and path. */
export const routeOf = (
  method: string,
  pathname: string,
): { name: string; ids: string[]; handler: Handler } | null => {
  for (const [m, pattern, name, handler] of ROUTES) {
    const match = pattern.exec(pathname);
    if (m === method && match) return { name, ids: match.slice(1).map(decodeURIComponent), handler };
  }
  return null;
};

export const readBody = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return {};
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid("the request body is not valid JSON");
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
    throw invalid("the request body must be a JSON object");
  return parsed as Record<string, unknown>;
};

export const hasBeta = (req: IncomingMessage): boolean => {
  const header = req.headers["anthropic-beta"];
  const values = (Array.isArray(header) ? header.join(",") : (header ?? "")).split(",").map((s) => s.trim());
  return MEMORY_STORES_BETAS.some((beta) => values.includes(beta));
};

export const sendJson = (res: ServerResponse, status: number, body: unknown, requestId: string): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "request-id": requestId,
  });
  res.end(text);
};

export const errorBody = (error: ApiError, requestId: string) => ({
  type: "error",
  error: error.error,
  request_id: requestId,
});
