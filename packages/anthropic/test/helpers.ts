import Anthropic from "@anthropic-ai/sdk";
import { type ScriptedMemoryStores, startScriptedMemoryStores } from "@mem/testing/memory-stores";
import { AnthropicMemoryStore, type AnthropicMemoryStoreOptions } from "../src/index.js";

export interface Hosted {
  server: ScriptedMemoryStores;
  client(key?: string): Anthropic;
  /** A store on a fresh hosted store (or on `memoryStoreId`), through a client of its own. */
  store(options?: Partial<AnthropicMemoryStoreOptions> & { key?: string }): AnthropicMemoryStore;
}

export async function startHosted(): Promise<Hosted> {
  const server = await startScriptedMemoryStores({
    actors: { "session-key": { type: "session_actor", session_id: "sesn_agent" } },
  });
  const client = (key = "test-key") => new Anthropic({ apiKey: key, baseURL: server.url });
  return {
    server,
    client,
    store: ({ key, ...options } = {}) =>
      new AnthropicMemoryStore({
        client: client(key),
        memoryStoreId: options.memoryStoreId ?? server.createStore(),
        ...options,
      }),
  };
}

/** The requests `run` made, by route. */
export async function requestsOf(
  server: ScriptedMemoryStores,
  run: () => Promise<unknown>,
): Promise<string[]> {
  const before = server.requests.length;
  await run();
  return server.requests.slice(before).map((r) => r.route);
}
