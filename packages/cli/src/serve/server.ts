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
import { HistoryStore } from "@mem/history";
import { checkToken, isLoopbackHost } from "@mem/mcp";
import { countStore } from "@mem/open";
import { entryName, MANIFEST_NAME, manifestOf, writeArchive } from "../archive.js";
import { travellingFiles } from "../travel.js";
import { Assets, findAssets } from "./assets.js";
import { Guard, refuse, SECURITY_HEADERS } from "./guard.js";
import { type LiveChange, pollChanges } from "./live.js";
import { search } from "./search.js";
import { ConsoleStores, listsTenants, singleTenant, tenantPageOf } from "./tenants.js";

export interface ConsoleOptions {
  /** Address to bind. Default `127.0.0.1`; any other needs `token`. */
  host?: string;
  /** TCP port; `0` (the default) picks a free one. */
  port?: number;
  /** Token every request must carry (login link, cookie or `Authorization: Bearer`). */
  token?: string;
  /** Allow restores. A token is then required; one is made up when none is given. */
  allowWrites?: boolean;
  /** The one tenant the store was opened for (`?tenant=` in its URL): shown, never switched. */
  tenant?: string;
  /** The quota agents run under (core's `maxFiles`, `maxTotalBytes`): the tenants list shows its use. */
  quota?: { maxFiles?: number; maxTotalBytes?: number };
  /** How often the live feed polls the listing, in ms. Default 2000. */
  pollMs?: number;
}

export interface ConsoleHandle {
  /** The console's address, e.g. `http://127.0.0.1:38017/`. */
  readonly url: string;
  /** The address that logs a browser in (sets the token cookie); `url` when no token is needed. */
  readonly loginUrl: string;
  /** Whether the token was made up here (then `loginUrl` is the only way to learn it). */
  readonly generatedToken: boolean;
  close(): Promise<void>;
}

const LIST_LIMIT = 200;
const MAX_LIST_LIMIT = 10_000;
const SEARCH_LIMIT = 100;
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
  if (!loopback && token === undefined) {
    throw new TypeError(`token is required when host is not a loopback address; host is ${host}`);
  }
  const generatedToken = token === undefined && options.allowWrites === true;
  if (generatedToken) token = randomBytes(24).toString("base64url");
  const dir = findAssets();
  if (!dir) throw new Error("the console's page is not built: run `pnpm --filter @mem/console build`");
  const assets = new Assets(dir);
  const guard = new Guard(host, loopback, token);
  const stores = new ConsoleStores(store);
  const writes = options.allowWrites === true;
  const fixedTenant = options.tenant;
  const restored = new Set<(change: LiveChange) => void>();

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
  const pathOf = (raw: unknown, of: MemoryStore): string => {
    const check = validatePath(raw, { isReservedName: of.isReservedName?.bind(of) });
    if (!check.ok) throw new HttpError(400, check.error.replace(/^Error: /, ""));
    return check.path;
  };

  const api: Record<
    string,
    (req: IncomingMessage, res: ServerResponse, q: URLSearchParams) => Promise<void>
  > = {
    "GET /api/info": async (_req, res) => {
      json(res, {
        writes,
        csrf: guard.csrf,
        tenants: fixedTenant === undefined && listsTenants(store),
        scoped: fixedTenant === undefined && stores.scoped,
        quota: options.quota ?? {},
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
      const entries = shown.map((e) => entryOf(e));
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
      if (!(of instanceof HistoryStore)) return json(res, { history: false, versions: [] });
      json(res, { history: true, versions: await of.versions(path) });
    },

    "GET /api/version": async (_req, res, q) => {
      const of = await storeOf(q);
      const path = pathOf(q.get("path"), of);
      const id = q.get("id") ?? "";
      if (!(of instanceof HistoryStore)) throw new HttpError(404, "this store keeps no versions");
      const data = id === "current" ? (await of.read(path))?.data : await of.readVersion(path, id);
      if (!data) throw new HttpError(404, `${path} has no version ${JSON.stringify(id)}`);
      json(res, { text: decoder.decode(data) });
    },

    "POST /api/restore": async (req, res, q) => {
      if (!writes) throw new HttpError(403, "read-only console: start mem serve with --allow-writes");
      const write = guard.checkWrite(req);
      if (!write.ok) throw new HttpError(write.status, write.reason);
      const body = (await readBody(req)) as { path?: unknown; id?: unknown };
      const of = await storeOf(q);
      const path = pathOf(body.path, of);
      if (typeof body.id !== "string" || !(of instanceof HistoryStore))
        throw new HttpError(400, "no such version");
      if ((await of.readVersion(path, body.id)) === null) {
        throw new HttpError(404, `${path} has no version ${JSON.stringify(body.id)}`);
      }
      const { replacedVersionId } = await of.restore(path, body.id);
      const change: LiveChange = { kind: "restored", path, entry: "file", time: Date.now() };
      for (const listener of restored) listener(change);
      json(res, { restored: body.id, replacedVersionId: replacedVersionId ?? null });
    },

    "GET /api/search": async (req, res, q) => {
      const of = await storeOf(q);
      const query = q.get("q") ?? "";
      if (query === "") throw new HttpError(400, "nothing to search for");
      let closed = false;
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
            regex: q.get("regex") === "1",
            hidden: q.get("hidden") === "1",
            cursor: whole(q.get("cursor"), 0, 1e9),
            limit: whole(q.get("limit"), SEARCH_LIMIT, 1000),
          },
          () => closed,
        );
      } catch (error) {
        if (error instanceof TypeError) throw new HttpError(400, error.message);
        throw error;
      }
      if (!closed) json(res, page);
    },

    "GET /api/events": async (req, res, q) => {
      const of = await storeOf(q);
      const send = (change: LiveChange) => res.write(`data: ${JSON.stringify(change)}\n\n`);
      // The first listing is taken before the stream opens: what changes after the page sees it open is reported.
      const poll = await pollChanges(of, options.pollMs ?? 2000, send);
      restored.add(send);
      req.on("close", () => {
        poll.stop();
        restored.delete(send);
      });
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        Connection: "keep-alive",
      });
      res.write(": live\n\n");
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
    // The login link: a valid token becomes an HttpOnly cookie, and the token leaves the address bar.
    const presented = url.searchParams.get("token");
    if (req.method === "GET" && url.pathname === "/" && presented !== null) {
      if (!guard.tokenMatches(presented)) return refuse(res, 401, "A valid token is required");
      res.writeHead(303, { ...SECURITY_HEADERS, "Set-Cookie": guard.loginCookie(presented), Location: "/" });
      res.end();
      return;
    }
    const auth = guard.authenticate(req);
    if (!auth.ok) return refuse(res, auth.status, auth.reason);
    const route = api[`${req.method} ${url.pathname}`];
    if (route) return route(req, res, url.searchParams);
    if (url.pathname.startsWith("/api/")) return refuse(res, 404, "no such endpoint");
    if (req.method !== "GET" && req.method !== "HEAD") return refuse(res, 405, "method not allowed");
    const asset = assets.get(url.pathname);
    if (!asset) return refuse(res, 404, "not found");
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      "Content-Type": asset.type,
      "Cache-Control": url.pathname.startsWith("/assets/")
        ? "public, max-age=31536000, immutable"
        : "no-store",
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
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${bound}/`;
  return {
    url,
    loginUrl: token === undefined ? url : `${url}?token=${encodeURIComponent(token)}`,
    generatedToken,
    close: () =>
      new Promise<void>((resolve, reject) => {
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
