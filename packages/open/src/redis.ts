/** `redis://[user:password@]host:port/<prefix>` and `rediss://` (TLS): Redis, keys under the prefix. */

import { importAdapter } from "./adapter.js";
import { type Backend, DEFAULT_PREFIX, expiryOption } from "./backend.js";
import { StoreUrlError } from "./errors.js";
import { maskUrl } from "./mask.js";
import { decodePart, parseUrl } from "./url.js";

export interface RedisSpec {
  kind: "redis";
  /** The server URL without the prefix path; may hold credentials, so show it only through `maskUrl`. */
  url: string;
  prefix: string;
}

const FORM = "redis://host:port/<prefix> (or rediss://)";

export const redisBackend: Backend<RedisSpec> = {
  kind: "redis",
  schemes: ["redis", "rediss"],
  form: FORM,
  parse(raw) {
    const url = parseUrl(raw, `Use ${FORM}.`);
    if (url.hostname === "")
      throw new StoreUrlError(`Store URL "${maskUrl(raw)}" needs a host, e.g. redis://127.0.0.1:6379/demo`);
    if (url.search !== "" || url.hash !== "") {
      throw new StoreUrlError(
        `Store URL "${maskUrl(raw)}" takes no query other than ?tenant= and no fragment; the path is the key prefix.`,
      );
    }
    const prefix = decodePart(url.pathname.slice(1), raw);
    const server = new URL(url.href);
    server.pathname = "";
    return {
      kind: "redis",
      url: server.href.replace(/\/$/, ""),
      prefix: prefix === "" ? DEFAULT_PREFIX : prefix,
    };
  },
  describe: (spec) => `Redis ${maskUrl(spec.url)}, prefix "${spec.prefix}"`,
  async open(spec, context) {
    const { RedisStore } = await importAdapter(
      { needed: "redis://", name: "@mem/redis" },
      () => import("@mem/redis"),
    );
    return new RedisStore({ url: spec.url, prefix: spec.prefix, ...expiryOption(context) });
  },
};
