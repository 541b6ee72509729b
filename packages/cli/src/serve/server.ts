/**
 * The console's HTTP server (`mem serve`): the built page, and a small JSON API over one store: tenants,
 * lazy listings, views exactly as `executeCommand` renders them, versions, restore, search, a live feed
 * (server-sent events) and the export archive.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  executeCommand,
  formatSize,
  isListedName,
  type ListEntry,
  type MemoryStore,
  nameOf,
  orderEntries,
  validatePath,
} from "@mem/core";
import { checkToken, isLoopbackHost } from "@mem/mcp";
import { countStore } from "@mem/open";
import { entryName, MANIFEST_NAME, manifestOf, writeArchive } from "../archive.js";
import { travellingFiles } from "../travel.js";
import { CLI_VERSION } from "../version.js";
import { Assets, findAssets } from "./assets.js";
import { changeRowsOf, hasChangeLog, type RollbackRequest, timeOf } from "./audit.js";
import { Guard, type Role, refuse, SECURITY_HEADERS, SESSION_MS } from "./guard.js";
import { type LiveChange, LiveHub, TooManyStreams } from "./live.js";
import { historyAt, isReadOnlyMountPoint, mountsOf } from "./mounts.js";
import { checkQuery, search } from "./search.js";
import { ConsoleStores, listsTenants, singleTenant, tenantPageOf } from "./tenants.js";

export interface ConsoleOptions {
  /** Address to bind. Default `127.0.0.1`; any other needs `token`. */
  host?: string;
  /** TCP port; `0` (the default) picks a free one. */
  port?: number;
  /** Token every request must carry (login link, session cookie or `Authorization: Bearer`): read-only. */
  token?: string;
  /** A second token whose holders may restore, whether or not `allowWrites` is set. */
  writeToken?: string;
  /** Let `token`'s holders restore too. A token is then required; one is made up when none is given. */
  allowWrites?: boolean;
  /** How long a login lasts, in ms. Default 12 hours. */
  sessionMs?: number;
  /** Most live-feed streams open at once; beyond it a stream is refused with 503. Default 64. */
  maxStreams?: number;
  /** The store as the header shows it (its URL with the password masked) and its kind, e.g. `redis`. */
  store?: { name: string; backend: string };
  /** The one tenant the store was opened for (`?tenant=` in its URL): shown, never switched. */
  tenant?: string;
  /** The quota agents run under (core's `maxFiles`, `maxTotalBytes`): the tenants list shows its use. */
  quota?: { maxFiles?: number; maxTotalBytes?: number };
  /** How often the live feed polls the listing, in ms. Default 2000. */
  pollMs?: number;
}

export interface ConsoleHandle {
  /** The console's address, under a path made at each start, e.g. `http://127.0.0.1:38017/Xq3…/`. */
  readonly url: string;
  /** The address that logs a browser in (sets the token cookie); `url` when no token is needed. */
  readonly loginUrl: string;
  /** Whether the token was made up here (then `loginUrl` is the only way to learn it). */
  readonly generatedToken: boolean;
  /** Live-feed streams open now, and the pollers behind them (one per tenant watched). */
  liveCounts(): { streams: number; pollers: number };
  close(): Promise<void>;
}

const LIST_LIMIT = 200;
const MAX_LIST_LIMIT = 10_000;
const SEARCH_LIMIT = 100;
const MAX_STREAMS = 64;
const decoder = new TextDecoder("utf-8");
const TRUNCATED = /\.\.\. output truncated after line (\d+) of (\d+)\./;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const json = (res: ServerResponse, value: unknown, status = 200): void => {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
  });
  res.end(JSON.stringify(value));
};

const whole = (raw: string | null, fallback: number, max: number): number => {
  if (raw === null || raw === "") return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new HttpError(400, "expected a whole number");
  return Math.min(Number(raw), max);
};

const readBody = async (req: IncomingMessage, max = 64 * 1024): Promise<unknown> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new HttpError(413, "request too large");
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new HttpError(400, "the body must be JSON");
  }
};

/** Starts the console over `store` (the caller keeps it open while the console runs, and closes it). */
export const startConsole = async (
  store: MemoryStore,
  options: ConsoleOptions = {},
): Promise<ConsoleHandle> => {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) {
    throw new TypeError("port must be an integer from 0 to 65535");
  }
  const loopback = isLoopbackHost(host);
  let token = options.token === undefined ? undefined : checkToken(options.token, "token");
  const writeToken =
    options.writeToken === undefined ? undefined : checkToken(options.writeToken, "writeToken");
  if (!loopback && token === undefined && writeToken === undefined) {
    throw new TypeError(`token is required when host is not a loopback address; host is ${host}`);
  }
  const sessionMs = options.sessionMs ?? SESSION_MS;
  if (!Number.isSafeInteger(sessionMs) || sessionMs < 1) {
    throw new TypeError("sessionMs must be a whole number of milliseconds, at least 1");
  }
  const maxStreams = options.maxStreams ?? MAX_STREAMS;
  if (!Number.isSafeInteger(maxStreams) || maxStreams < 0) {
    throw new TypeError("maxStreams must be a whole number, 0 or more");
  }
  const generatedToken = token === undefined && writeToken === undefined && options.allowWrites === true;
  if (generatedToken) token = randomBytes(24).toString("base64url");
  const dir = findAssets();
  if (!dir) throw new Error("the console's page is not built: run `pnpm --filter @mem/console build`");
  const assets = new Assets(dir);
  const guard = new Guard({
    host,
    loopback,
    token,
    writeToken,
    writes: options.allowWrites === true,
    sessionMs,
  });
  const stores = new ConsoleStores(store);
  const fixedTenant = options.tenant;
  const hub = new LiveHub(options.pollMs ?? 2000, maxStreams);
  // Aborted when the server closes: searches and streams in flight stop with it.
  const closing = new AbortController();

  const tenantOf = (params: URLSearchParams): string | undefined => {
    const tenant = params.get("tenant") ?? undefined;
    return fixedTenant === undefined && tenant !== "" ? tenant : undefined;
  };
  const storeOf = async (params: URLSearchParams): Promise<MemoryStore> => {
    try {
      return await stores.of(tenantOf(params));
    } catch (error) {
      if (error instanceof TypeError) throw new HttpError(400, error.message);
      throw error;
    }
  };
  /** The change log a request reads: the root's (naming the tenant), or else the tenant store's own. */
  const changeLogOf = async (q: URLSearchParams) => {
    const tenant = tenantOf(q);
    const of = await storeOf(q);
    if (hasChangeLog(store) && (tenant === undefined || fixedTenant === undefined)) {
      return { log: store, tenant: of === store ? undefined : tenant, of };
    }
    if (hasChangeLog(of)) return { log: of, tenant: undefined, of };
    throw new HttpError(404, "this store keeps no change log (open it with ?history)");
  };
  const pathOf = (raw: unknown, of: MemoryStore): string => {
    const check = validatePath(raw, { isReservedName: of.isReservedName?.bind(of) });
    if (!check.ok) throw new HttpError(400, check.error.replace(/^Error: /, ""));
    return check.path;
  };

  const api: Record<
    string,
    (req: IncomingMessage, res: ServerResponse, q: URLSearchParams, role: Role) => Promise<void>
  > = {
    "GET /api/info": async (_req, res, _q, role) => {
      json(res, {
        writes: role === "write",
        version: CLI_VERSION,
        ...(options.store ? { store: options.store } : {}),
        csrf: guard.csrf,
        tenants: fixedTenant === undefined && listsTenants(store),
        audit: hasChangeLog(store),
        scoped: fixedTenant === undefined && stores.scoped,
        quota: options.quota ?? {},
        mounts: (mountsOf(store) ?? []).map((m) => ({ path: m.path, access: m.access })),
        ...(fixedTenant === undefined ? {} : { tenant: fixedTenant }),
      });
    },

    "GET /api/tenants": async (_req, res, q) => {
      if (fixedTenant === undefined && listsTenants(store)) {
        const after = q.get("after");
        const page = await store.tenants({
          limit: whole(q.get("limit"), 100, 1000),
          ...(after ? { after } : {}),
        });
        // Each tenant's count is the one every surface shows (countStore), not what tenants() keeps.
        const tenants = await Promise.all(
          page.tenants.map(async (t) => ({ ...t, ...(await countStore(await stores.of(t.id))) })),
        );
        return json(res, tenantPageOf({ ...page, tenants }));
      }
      // A store that lists no tenants: the one the URL or the page names, if any.
      const tenant = fixedTenant ?? tenantOf(q);
      if (tenant === undefined) return json(res, { tenants: [] });
      json(res, await singleTenant(tenant, await storeOf(q)));
    },

    "GET /api/list": async (_req, res, q) => {
      const of = await storeOf(q);
      const dir = pathOf(q.get("path") ?? "/memories", of);
      const limit = whole(q.get("limit"), LIST_LIMIT, MAX_LIST_LIMIT);
      const listing = await of.list(dir, 1, { limit });
      if (!listing) throw new HttpError(404, `${dir} is not a directory`);
      const children = orderEntries(
        dir,
        listing.entries.filter((e) => e.depth === 1),
      );
      const shown = children.slice(0, limit);
      const entries = shown.map((e) => ({
        ...entryOf(e),
        ...(isReadOnlyMountPoint(of, e.path) ? { readOnly: true } : {}),
      }));
      if (q.get("hidden") === "1") entries.push(...(await hiddenChildren(of, dir)));
      json(res, {
        path: dir,
        size: formatSize(listing.size),
        entries,
        omitted: (listing.omitted ?? 0) + (children.length - shown.length),
      });
    },

    "GET /api/view": async (_req, res, q) => {
      const of = await storeOf(q);
      const path = pathOf(q.get("path"), of);
      const start = q.get("start");
      const input: Record<string, unknown> = { command: "view", path };
      if (start !== null) input["view_range"] = [whole(start, 1, 1e9), Number(q.get("end") ?? -1)];
      const result = await executeCommand(of, input);
      const more = TRUNCATED.exec(result.content);
      json(res, {
        content: result.content,
        isError: result.isError,
        ...(result.image ? { image: result.image } : {}),
        ...(more ? { next: [Number(more[1]) + 1, Number(more[2])] } : {}),
      });
    },

    "GET /api/raw": async (_req, res, q) => {
      const of = await storeOf(q);
      const path = pathOf(q.get("path"), of);
      const file = await of.read(path);
      if (!file) throw new HttpError(404, `${path} does not exist`);
      json(res, { text: decoder.decode(file.data), bytes: file.data.byteLength });
    },

    "GET /api/versions": async (_req, res, q) => {
      const of = await storeOf(q);
      const path = pathOf(q.get("path"), of);
      const at = historyAt(of, path);
      if (!at) return json(res, { history: false, versions: [] });
      json(res, {
        history: true,
        versions: await at.history.versions(at.path),
        ...(at.readOnly ? { readOnly: true } : {}),
      });
    },

    "GET /api/version": async (_req, res, q) => {
      const of = await storeOf(q);
      const path = pathOf(q.get("path"), of);
      const id = q.get("id") ?? "";
      const at = historyAt(of, path);
      if (!at) throw new HttpError(404, "this store keeps no versions");
      const data = id === "current" ? (await of.read(path))?.data : await at.history.readVersion(at.path, id);
      if (!data) throw new HttpError(404, `${path} has no version ${JSON.stringify(id)}`);
      json(res, { text: decoder.decode(data) });
    },

    "POST /api/restore": async (req, res, q, role) => {
      if (role !== "write") {
        throw new HttpError(
          403,
          "read-only console: log in with the write token (--write-token), or start mem serve with --allow-writes",
        );
      }
      const write = guard.checkWrite(req);
      if (!write.ok) throw new HttpError(write.status, write.reason);
      const body = (await readBody(req)) as { path?: unknown; id?: unknown };
      const of = await storeOf(q);
      const path = pathOf(body.path, of);
      const at = historyAt(of, path);
      if (typeof body.id !== "string" || !at) throw new HttpError(400, "no such version");
      // A read-only mount is never written, by the model or by the console.
      if (at.readOnly) throw new HttpError(403, `${path} is in a read-only mount: it cannot be restored`);
      if ((await at.history.readVersion(at.path, body.id)) === null) {
        throw new HttpError(404, `${path} has no version ${JSON.stringify(body.id)}`);
      }
      const { replacedVersionId } = await at.history.restore(at.path, body.id);
      const change: LiveChange = { kind: "restored", path, entry: "file", time: Date.now() };
      hub.announce(of, change);
      json(res, { restored: body.id, replacedVersionId: replacedVersionId ?? null });
    },

    "GET /api/search": async (req, res, q) => {
      const query = q.get("q") ?? "";
      if (query === "") throw new HttpError(400, "nothing to search for");
      const regex = q.get("regex") === "1";
      try {
        checkQuery(query, regex);
      } catch (error) {
        throw new HttpError(400, (error as Error).message);
      }
      const of = await storeOf(q);
      let closed = closing.signal.aborted;
      const stop = () => {
        closed = true;
      };
      closing.signal.addEventListener("abort", stop, { once: true });
      req.on("close", () => {
        closed = true;
      });
      res.on("close", () => {
        closed = true;
      });
      let page: Awaited<ReturnType<typeof search>>;
      try {
        page = await search(
          of,
          {
            query,
            regex,
            hidden: q.get("hidden") === "1",
            cursor: whole(q.get("cursor"), 0, 1e9),
            limit: whole(q.get("limit"), SEARCH_LIMIT, 1000),
            ...(q.get("files") ? { files: Math.max(1, whole(q.get("files"), 1, 1e9)) } : {}),
          },
          () => closed,
        );
      } catch (error) {
        if (error instanceof TypeError) throw new HttpError(400, error.message);
        throw error;
      } finally {
        closing.signal.removeEventListener("abort", stop);
      }
      if (!closed) json(res, page);
    },

    "GET /api/events": async (req, res, q) => {
      const of = await storeOf(q);
      const send = (change: LiveChange) => {
        if (res.headersSent) res.write(`data: ${JSON.stringify(change)}\n\n`);
      };
      let joined: ReturnType<LiveHub["join"]>;
      try {
        joined = hub.join(of, send);
      } catch (error) {
        if (error instanceof TooManyStreams) throw new HttpError(503, error.message);
        throw error;
      }
      // The viewer leaves with its request, whenever that goes: even during the first listing.
      res.on("close", joined.leave);
      closing.signal.addEventListener("abort", joined.leave, { once: true });
      if (res.destroyed || req.socket.destroyed || closing.signal.aborted) return joined.leave();
      // The first listing is taken before the stream opens: what changes after the page sees it open is reported.
      await joined.ready;
      if (res.destroyed || req.socket.destroyed || closing.signal.aborted) return joined.leave();
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        Connection: "keep-alive",
      });
      res.write(": live\n\n");
    },

    "GET /api/changes": async (_req, res, q) => {
      const { log, tenant } = await changeLogOf(q);
      const limit = whole(q.get("limit"), 100, 1000);
      let page: Awaited<ReturnType<typeof log.changes>>;
      try {
        const since = timeOf(q.get("since"), "since");
        const until = timeOf(q.get("until"), "until");
        const by = q.get("by") || undefined;
        const path = q.get("path") ? pathOf(q.get("path"), store) : undefined;
        const after = q.get("after") || undefined;
        page = await log.changes({
          limit,
          ...(tenant === undefined ? {} : { tenant }),
          ...(since === undefined ? {} : { since }),
          ...(until === undefined ? {} : { until }),
          ...(by === undefined ? {} : { by }),
          ...(path === undefined ? {} : { path }),
          ...(after === undefined ? {} : { after }),
        });
      } catch (error) {
        if (error instanceof TypeError) throw new HttpError(400, error.message);
        throw error;
      }
      json(res, changeRowsOf(page));
    },

    "POST /api/rollback": async (req, res, q, role) => {
      if (role !== "write") throw new HttpError(403, "read-only console: rolling back needs the write token");
      const write = guard.checkWrite(req);
      if (!write.ok) throw new HttpError(write.status, write.reason);
      const body = (await readBody(req)) as { to?: unknown; by?: unknown; undo?: unknown };
      const { log, tenant, of } = await changeLogOf(q);
      const scope = { ...(tenant === undefined ? {} : { tenant }), actor: "console" };
      let request: RollbackRequest;
      if (typeof body.undo === "string" && body.undo !== "") request = { undo: body.undo, ...scope };
      else if (typeof body.to === "number" && Number.isFinite(body.to)) {
        const by = typeof body.by === "string" && body.by !== "" ? { by: body.by } : {};
        request = { to: body.to, ...by, ...scope };
      } else throw new HttpError(400, "give `to` (a time in ms) or `undo` (a rollback's id)");
      let result: Awaited<ReturnType<typeof log.rollback>>;
      try {
        result = await log.rollback(request);
      } catch (error) {
        if (error instanceof TypeError) throw new HttpError(400, error.message);
        throw error;
      }
      const time = Date.now();
      for (const path of [...result.restored, ...result.deleted]) {
        hub.announce(of, { kind: "restored", path, entry: "file", time, actor: "console" });
      }
      json(res, {
        id: result.id ?? null,
        restored: result.restored,
        deleted: result.deleted,
        skipped: result.skipped,
      });
    },

    "GET /api/export": async (_req, res, q) => {
      const of = await storeOf(q);
      const tenant = fixedTenant ?? tenantOf(q);
      const { files } = await travellingFiles(of);
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        "Content-Type": "application/x-tar",
        "Content-Disposition": `attachment; filename="${tenant === undefined ? "memories" : `memories-${tenant}`}.tar"`,
      });
      await writeArchive(
        res,
        (async function* () {
          yield { name: MANIFEST_NAME, data: manifestOf(null) };
          for (const { path } of files) {
            const data = await of.read(path);
            if (data) yield { name: entryName(path), data: data.data };
          }
        })(),
      );
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const verdict = guard.check(req);
    if (!verdict.ok) return refuse(res, verdict.status, verdict.reason);
    const url = new URL(req.url ?? "/", "http://console.invalid");
    const atEntry = url.pathname === "/" || url.pathname === guard.base;
    // The login link (at `/` or the console's path): a valid token becomes a session cookie scoped to the
    // console's path, and the token leaves the address bar.
    const presented = url.searchParams.get("token");
    if (req.method === "GET" && atEntry && presented !== null) {
      const role = guard.roleOf(presented);
      if (!role) return refuse(res, 401, "A valid token is required");
      res.writeHead(303, { ...SECURITY_HEADERS, "Set-Cookie": guard.login(role), Location: guard.base });
      res.end();
      return;
    }
    if (!url.pathname.startsWith(guard.base)) {
      if (guard.needsToken) return refuse(res, 401, "A valid token is required");
      // Without a token there is nothing to hide: the root leads to the console.
      if (req.method === "GET" && url.pathname === "/") {
        res.writeHead(303, { ...SECURITY_HEADERS, Location: guard.base });
        res.end();
        return;
      }
      return refuse(res, 404, "not found");
    }
    const auth = guard.authenticate(req);
    if (!auth.ok) return refuse(res, auth.status, auth.reason);
    const local = `/${url.pathname.slice(guard.base.length)}`;
    const route = api[`${req.method} ${local}`];
    if (route) return route(req, res, url.searchParams, auth.role);
    if (local.startsWith("/api/")) return refuse(res, 404, "no such endpoint");
    if (req.method !== "GET" && req.method !== "HEAD") return refuse(res, 405, "method not allowed");
    const asset = assets.get(local);
    if (!asset) return refuse(res, 404, "not found");
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": asset.type,
      "Cache-Control": local.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "no-store",
    });
    res.end(req.method === "HEAD" ? undefined : asset.body);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (error instanceof HttpError) return refuse(res, error.status, error.message);
      // Store failures are not echoed: their messages may name hosts or keys.
      refuse(res, 500, "the store failed to answer");
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : port;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${bound}${guard.base}`;
  return {
    url,
    loginUrl: token === undefined ? url : `${url}?token=${encodeURIComponent(token)}`,
    generatedToken,
    liveCounts: () => hub.counts,
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing.abort();
        hub.close();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
};

const entryOf = (e: Pick<ListEntry, "path" | "kind" | "size">, hidden = false) => ({
  name: nameOf(e.path),
  path: e.path,
  kind: e.kind,
  size: formatSize(e.size),
  bytes: e.size,
  ...(hidden ? { hidden: true } : {}),
});

/**
 * The hidden children of `dir`. Listings never hold them, so this asks `files()` (every file of the
 * tenant): it costs a walk, and runs only while the page's "hidden" toggle is on.
 */
const hiddenChildren = async (store: MemoryStore, dir: string) => {
  if (!store.files) return [];
  const found = new Map<string, { path: string; kind: "file" | "directory"; size: number }>();
  for (const file of await store.files()) {
    if (!file.path.startsWith(`${dir}/`)) continue;
    const rest = file.path.slice(dir.length + 1);
    const name = rest.split("/")[0] as string;
    if (isListedName(name) || name.startsWith(".mem-")) continue;
    const path = `${dir}/${name}`;
    const kind = rest.includes("/") ? "directory" : "file";
    const entry = found.get(path) ?? { path, kind, size: 0 };
    entry.size += file.size;
    found.set(path, entry);
  }
  return [...found.values()].sort((a, b) => (a.path < b.path ? -1 : 1)).map((e) => entryOf(e, true));
};
