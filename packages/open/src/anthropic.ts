/**
 * `anthropic://<memory store id>/<prefix>`: a hosted memory store (Managed Agents). The API key comes from
 * `ANTHROPIC_API_KEY` and the base URL from `ANTHROPIC_BASE_URL`, as the SDK reads them; neither is ever
 * part of the URL or of a message.
 */

import { importAdapter } from "./adapter.js";
import type { Backend } from "./backend.js";
import { StoreSetupError, StoreUrlError } from "./errors.js";
import { decodePart, parseUrl } from "./url.js";

export interface AnthropicSpec {
  kind: "anthropic";
  memoryStoreId: string;
  /** Where `/memories` lies in the hosted store: `""` (its root) or a path such as `/team`. */
  prefix: string;
}

const FORM = "anthropic://<memory store id>/<prefix>";
const STORE_ID = /^memstore_[A-Za-z0-9_-]{1,119}$/;

export const anthropicBackend: Backend<AnthropicSpec> = {
  kind: "anthropic",
  schemes: ["anthropic"],
  form: FORM,
  parse(raw) {
    const url = parseUrl(raw, `Use ${FORM}.`);
    if (url.username !== "" || url.password !== "")
      throw new StoreUrlError(
        "Store URL: anthropic:// URLs must not hold credentials; use ANTHROPIC_API_KEY.",
      );
    if (url.port !== "")
      throw new StoreUrlError("Store URL: an anthropic:// URL names a memory store, not a host:port.");
    if (!STORE_ID.test(url.hostname))
      throw new StoreUrlError(
        `Store URL: an anthropic:// URL names a memory store id (memstore_...). Use ${FORM}.`,
      );
    if ([...url.searchParams.keys()].length > 0)
      throw new StoreUrlError("Store URL: an anthropic URL takes no options but tenant and history.");
    const path = decodePart(url.pathname, raw).replace(/\/+$/, "");
    return { kind: "anthropic", memoryStoreId: url.hostname, prefix: path };
  },
  describe: (spec) =>
    `Anthropic memory store ${spec.memoryStoreId}${spec.prefix ? `, prefix "${spec.prefix}"` : ""}`,
  async open(spec, context) {
    const { AnthropicMemoryStore } = await importAdapter(
      { needed: "anthropic://", name: "@mem/anthropic", install: ["@anthropic-ai/sdk"] },
      () => import("@mem/anthropic"),
    );
    const { default: Anthropic } = await importAdapter(
      { needed: "anthropic://", name: "@anthropic-ai/sdk" },
      () => import("@anthropic-ai/sdk"),
    );
    if (context.expireAfterSeconds !== undefined)
      throw new StoreSetupError("anthropic:// stores keep no access times, so their files cannot expire.");
    const apiKey = context.env["ANTHROPIC_API_KEY"];
    if (!apiKey) throw new StoreSetupError("anthropic:// needs an API key in ANTHROPIC_API_KEY.");
    const baseURL = context.env["ANTHROPIC_BASE_URL"];
    const client = new Anthropic({ apiKey, ...(baseURL ? { baseURL } : {}) });
    try {
      return new AnthropicMemoryStore({ client, memoryStoreId: spec.memoryStoreId, prefix: spec.prefix });
    } catch (error) {
      throw new StoreUrlError(`Store URL: ${(error as Error).message}.`);
    }
  },
};
