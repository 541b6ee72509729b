/** The streamable HTTP transport: one endpoint, `/mcp`, loopback by default, bearer tokens elsewhere. */
import type { Server } from "node:http";
import { checkTenant, type MemoryStore } from "@mem/core";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import { localhostHostValidation } from "@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import express, { type NextFunction, type Request, type Response } from "express";
import { isLoopbackHost } from "./access.js";
import { createLog, type LogDestination, logRefusals } from "./log.js";
import { METRICS_PATH, observeCommands } from "./metrics.js";
import { checkBoolean, checkServerOptions } from "./options.js";
import { createMemoryMcpServer, type MemoryMcpServerOptions } from "./server.js";
import { checkToken, StaticTokenVerifier } from "./tokens.js";

/** The path of the MCP endpoint. */
export const MCP_PATH = "/mcp";
/** The port `serveHttp` listens on when none is given. */
export const DEFAULT_PORT = 3333;

// A 1 MiB file whose every character JSON escapes as `\u00XX` takes 6 MiB on the wire.
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

export interface HttpServeOptions extends MemoryMcpServerOptions {
  /** The address to bind. Default `127.0.0.1`. Any other than a loopback address needs a token. */
  host?: string;
  /** The TCP port. Default 3333; `0` picks a free port (see `url`). */
  port?: number;
  /** A bearer token every request must carry (`Authorization: Bearer <token>`); 16+ printable characters. */
  token?: string;
  /**
   * Tokens that each give access to one tenant's memory, `store.scope(tenant)`: one server, many users.
   * Requests must carry one of these tokens. Not together with `token`.
   */
  tenantFromToken?: Readonly<Record<string, string>> | ReadonlyMap<string, string>;
  /**
   * Serve `/metrics` (Prometheus text format). Default `true`. Its counts cover every tenant, so it answers
   * only to an operator: `token` or `metricsToken`, never a token of `tenantFromToken`.
   */
  metrics?: boolean;
  /** A bearer token for `/metrics` only (16+ printable characters): the operator's, beside tenant tokens. */
  metricsToken?: string;
  /** Where the JSON log lines go (start, stop, refused requests, store failures). Default stderr; `false`: none. */
  log?: LogDestination | false;
}

/** A running HTTP server. */
export interface HttpServerHandle {
  /** The endpoint's URL, e.g. `http://127.0.0.1:3333/mcp`. */
  readonly url: string;
  /** Stops accepting requests and closes open connections. The store is the caller's to close. */
  close(): Promise<void>;
}

const isLoopback = isLoopbackHost;

/**
 * Serves `store` over MCP's streamable HTTP transport at `http://{host}:{port}/mcp`, statelessly: each
 * POST gets its own server, so any number of clients and server processes can share one store.
 * Bound to a loopback address it also refuses requests whose `Host` header names another host (DNS
 * rebinding). Bound anywhere else it refuses to start without `token` or `tenantFromToken`; requests
 * without a valid token are answered 401. Tokens are compared in constant time and never logged.
 *
 * @example
 * ```ts
 * import { FsStore } from "@mem/fs";
 * import { serveHttp } from "@mem/mcp";
 *
 * const server = await serveHttp(new FsStore({ root: "./memory" }), { port: 3333 });
 * console.error(`memory at ${server.url}`);
 * ```
 */
export async function serveHttp(
  store: MemoryStore,
  options: HttpServeOptions = {},
): Promise<HttpServerHandle> {
  checkServerOptions(options);
  checkBoolean(options as Record<string, unknown>, "metrics");
  const {
    host = "127.0.0.1",
    port = DEFAULT_PORT,
    token,
    tenantFromToken,
    metrics = true,
    metricsToken,
    log: logTo,
    ...serverOptions
  } = options;
  if (typeof host !== "string" || host === "") throw new TypeError("host must be a non-empty string");
  if (!Number.isSafeInteger(port) || port < 0 || port > 65535) {
    throw new TypeError("port must be an integer from 0 to 65535");
  }
  if (token !== undefined && tenantFromToken !== undefined) {
    throw new TypeError("token and tenantFromToken exclude each other: give one of them");
  }

  const tokens: [string, string | undefined][] = [];
  if (token !== undefined) tokens.push([checkToken(token, "token"), undefined]);
  if (tenantFromToken !== undefined) {
    if (typeof store.scope !== "function") {
      throw new TypeError("tenantFromToken needs a store with scope(tenant); this store has none");
    }
    const entries =
      tenantFromToken instanceof Map
        ? [...tenantFromToken.entries()]
        : Object.entries(tenantFromToken as Record<string, string>);
    if (entries.length === 0) throw new TypeError("tenantFromToken must map at least one token to a tenant");
    for (const [key, tenant] of entries) {
      tokens.push([checkToken(key, "each token of tenantFromToken"), checkTenant(tenant)]);
    }
  }
  if (!isLoopback(host) && tokens.length === 0) {
    throw new TypeError(
      `token (or tenantFromToken) is required when host is not a loopback address; host is ${host}`,
    );
  }

  // `/metrics` counts every tenant's commands: only operator tokens read it.
  const operators: [string, undefined][] = [];
  if (token !== undefined) operators.push([token, undefined]);
  if (metricsToken !== undefined) operators.push([checkToken(metricsToken, "metricsToken"), undefined]);

  const scopes = new Map<string, MemoryStore>();
  const storeFor = (tenant: unknown): MemoryStore => {
    if (typeof tenant !== "string") return store;
    let scoped = scopes.get(tenant);
    if (!scoped) {
      scoped = (store.scope as (tenant: string) => MemoryStore).call(store, tenant);
      scopes.set(tenant, scoped);
    }
    return scoped;
  };

  const log = createLog(logTo);
  const observer = observeCommands((failed) =>
    log.error(
      {
        event: "store_failure",
        command: failed.command,
        errorType: failed.errorType,
        backend: failed.backend,
      },
      "store failure",
    ),
  );
  const app = express();
  app.disable("x-powered-by");
  app.use(logRefusals(log));
  if (isLoopback(host)) app.use(localhostHostValidation());
  if (tokens.length > 0) {
    app.use(MCP_PATH, requireBearerAuth({ verifier: new StaticTokenVerifier(tokens) }));
  }
  if (metrics && (tokens.length > 0 || operators.length > 0)) {
    // With tenant tokens and no metricsToken nobody is an operator: every request is refused.
    app.use(METRICS_PATH, requireBearerAuth({ verifier: new StaticTokenVerifier(operators) }));
  }
  if (metrics) {
    app.get(METRICS_PATH, async (_req: Request, res: Response) => {
      res.set("Content-Type", observer.registry.contentType).send(await observer.registry.metrics());
    });
  }
  app.post(MCP_PATH, async (req: Request, res: Response) => {
    const tenant = req.auth?.extra?.["tenant"];
    // The actor is the name the token goes by: its tenant.
    const attribution = typeof tenant === "string" ? { actor: tenant, tenant } : {};
    const server = createMemoryMcpServer(storeFor(tenant), { ...serverOptions, ...attribution });
    // No session id generator: stateless, so any request may reach any server process.
    const transport = new StreamableHTTPServerTransport({
      enableJsonResponse: true,
      maxRequestBodySize: MAX_REQUEST_BYTES,
    });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res);
    } catch {
      if (!res.headersSent) rpcError(res, 500, -32603, "Internal server error");
    }
  });
  // Stateless: no server-initiated stream to GET and no session to DELETE.
  app.all(MCP_PATH, (_req: Request, res: Response) => {
    res.set("Allow", "POST");
    rpcError(res, 405, -32000, "Method not allowed");
  });

  // Express's own error page would show a stack trace; clients get a bare JSON-RPC error instead.
  app.use((_error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (!res.headersSent) rpcError(res, 500, -32603, "Internal server error");
  });

  let listener: Server;
  try {
    listener = await listen(app, host, port);
  } catch (error) {
    observer.close();
    throw error;
  }
  const address = listener.address();
  const boundPort = typeof address === "object" && address ? address.port : port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const url = `http://${shownHost}:${boundPort}${MCP_PATH}`;
  log.info({ event: "start", url, metrics, tokens: tokens.length }, "listening");
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        observer.close();
        listener.close((error) => {
          log.info({ event: "stop", url }, "stopped");
          return error ? reject(error) : resolve();
        });
        listener.closeAllConnections();
      }),
  };
}

const rpcError = (res: Response, status: number, code: number, message: string): void => {
  res.status(status).json({ jsonrpc: "2.0", error: { code, message }, id: null });
};

const listen = (app: express.Express, host: string, port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const listener = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(listener)));
  });
