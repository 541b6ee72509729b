/**
 * `startScriptedMemoryStores()`: the scripted Memory Stores API on a loopback port, for the official SDK
 * client (`new Anthropic({ baseURL: server.url })`). It records every request and can be told to fail or
 * lose the answer of the next matching ones, so tests can play network faults for real.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorBody, hasBeta, readBody, routeOf, sendJson } from "./http.js";
import { ApiError, MemoryStoresModel, type ScriptedActor } from "./model.js";

/** One request the server answered (or was told to fail). */
export interface RecordedRequest {
  readonly method: string;
  /** The endpoint, ids left out: `GET memories`, `POST memories/{id}`, `DELETE memories/{id}`... */
  readonly route: string;
  readonly status: number;
}

/**
 * What to do with the next request of a route: `drop-answer` applies it and then closes the connection
 * without answering (a lost answer); `reset` closes the connection without applying it; `fail` answers
 * HTTP 500 without applying it.
 */
export type ScriptedFault = "drop-answer" | "reset" | "fail";

export interface ScriptedMemoryStoresOptions {
  /** API keys and who they act as (`created_by`); unlisted keys are `api_actor`s with an id derived from the key. */
  actors?: Record<string, ScriptedActor>;
  /** The time the server writes in `created_at`, in ms since the epoch. Default `Date.now`. */
  clock?: () => number;
}

export interface ScriptedMemoryStores {
  /** The base URL to give the SDK client (`baseURL`). */
  readonly url: string;
  /** The state: stores, memories and versions. */
  readonly model: MemoryStoresModel;
  /** Every request so far, in order. */
  readonly requests: RecordedRequest[];
  /** Creates a memory store directly (no request) and returns its id. */
  createStore(name?: string): string;
  /**
   * Applies `fault` to `times` requests (default 1) of `route` (a `RecordedRequest.route`), after letting
   * the next `after` (default 0) through.
   */
  inject(route: string, fault: ScriptedFault, options?: { times?: number; after?: number }): void;
  /** Drops every fault still waiting. */
  clearFaults(): void;
  close(): Promise<void>;
}

const actorOf = (key: string, actors: Record<string, ScriptedActor>): ScriptedActor =>
  actors[key] ?? {
    type: "api_actor",
    api_key_id: `apikey_${createHash("sha256").update(key).digest("hex").slice(0, 24)}`,
  };

const credentialOf = (req: IncomingMessage): string | null => {
  const key = req.headers["x-api-key"];
  if (typeof key === "string" && key !== "") return key;
  const auth = req.headers.authorization;
  return typeof auth === "string" && auth.startsWith("Bearer ") ? auth.slice(7) : null;
};

/**
 * Starts the scripted Memory Stores API on a free loopback port.
 *
 * @example
 * ```ts
 * const server = await startScriptedMemoryStores();
 * const storeId = server.createStore();
 * // new Anthropic({ apiKey: "test", baseURL: server.url }).beta.memoryStores.memories.create(storeId, ...)
 * await server.close();
 * ```
 */
export async function startScriptedMemoryStores(
  options: ScriptedMemoryStoresOptions = {},
): Promise<ScriptedMemoryStores> {
  const model = new MemoryStoresModel(options.clock);
  const actors = options.actors ?? {};
  const requests: RecordedRequest[] = [];
  const faults = new Map<string, Array<ScriptedFault | null>>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestId = `req_${randomUUID().replaceAll("-", "")}`;
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = req.method ?? "GET";
    const route = routeOf(method, url.pathname);
    const name = route?.name ?? `${method} ${url.pathname}`;
    const answer = (status: number, body: unknown) => {
      requests.push({ method, route: name, status });
      sendJson(res, status, body, requestId);
    };
    try {
      const body = await readBody(req);
      const key = credentialOf(req);
      if (key === null)
        throw new ApiError(401, { type: "authentication_error", message: "x-api-key header is required" });
      if (!route) throw new ApiError(404, { type: "not_found_error", message: "no such endpoint" });
      if (!hasBeta(req))
        throw new ApiError(400, {
          type: "invalid_request_error",
          message: "this endpoint is in beta: send anthropic-beta: agent-memory-2026-07-22",
        });
      const fault = faults.get(name)?.shift();
      if (fault === "reset" || fault === "fail") {
        requests.push({ method, route: name, status: fault === "fail" ? 500 : 0 });
        if (fault === "reset") res.socket?.destroy();
        else
          sendJson(
            res,
            500,
            errorBody(new ApiError(500, { type: "api_error", message: "internal error" }), requestId),
            requestId,
          );
        return;
      }
      const result = route.handler(
        model,
        { method, route: name, url, body, actor: actorOf(key, actors) },
        route.ids,
      );
      if (fault === "drop-answer") {
        requests.push({ method, route: name, status: 0 });
        res.socket?.destroy();
        return;
      }
      answer(result.status ?? 200, result.body);
    } catch (error) {
      if (error instanceof ApiError) answer(error.status, errorBody(error, requestId));
      else
        answer(
          500,
          errorBody(new ApiError(500, { type: "api_error", message: "internal error" }), requestId),
        );
    }
  };

  const server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    model,
    requests,
    createStore: (name = "memory") => model.createStore(name).id,
    inject(route, fault, { times = 1, after = 0 } = {}) {
      const queue = faults.get(route) ?? [];
      queue.push(...Array<null>(after).fill(null), ...Array<ScriptedFault>(times).fill(fault));
      faults.set(route, queue);
    },
    clearFaults: () => faults.clear(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
