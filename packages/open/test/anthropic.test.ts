import { executeCommand } from "@mem/core";
import { type ScriptedMemoryStores, startScriptedMemoryStores } from "@mem/testing/memory-stores";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, parseStoreUrl, StoreSetupError, StoreUrlError } from "../src/index.js";

let server: ScriptedMemoryStores;
beforeAll(async () => {
  server = await startScriptedMemoryStores();
});
afterAll(() => server.close());

const KEY = "sk-ant-test-0123456789abcdef";

describe("anthropic:// store URLs", () => {
  it("name a memory store id and an optional prefix", () => {
    expect(parseStoreUrl("anthropic://memstore_01AbC").backend).toEqual({
      kind: "anthropic",
      memoryStoreId: "memstore_01AbC",
      prefix: "",
    });
    expect(parseStoreUrl("anthropic://memstore_x/team/a/").backend).toEqual({
      kind: "anthropic",
      memoryStoreId: "memstore_x",
      prefix: "/team/a",
    });
    expect(parseStoreUrl("anthropic://memstore_x?tenant=t1")).toMatchObject({
      backend: { memoryStoreId: "memstore_x" },
      tenant: "t1",
    });
  });

  it("refuse credentials, ports, options and other ids, echoing no secret", () => {
    for (const url of [
      `anthropic://user:${KEY}@memstore_x`,
      "anthropic://memstore_x:443",
      `anthropic://memstore_x?key=${KEY}`,
      "anthropic://notastore",
    ]) {
      const error = (() => {
        try {
          parseStoreUrl(url);
        } catch (e) {
          return e;
        }
      })();
      expect(error, url).toBeInstanceOf(StoreUrlError);
      expect((error as Error).message).not.toContain(KEY);
    }
  });

  it("open the hosted store with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL", async () => {
    const id = server.createStore();
    const env = { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url };
    const store = await openStore(`anthropic://${id}/team`, { env });
    const created = await executeCommand(store, {
      command: "create",
      path: "/memories/a.md",
      file_text: "hi",
    });
    expect(created.content).toBe("File created successfully at: /memories/a.md");
    expect([...server.model.store(id).paths.keys()]).toEqual(["/team/a.md"]);
    await store.close?.();
  });

  it("say which variable is missing, and never echo the key in a failure", async () => {
    await expect(openStore("anthropic://memstore_x", { env: {} })).rejects.toThrow(
      "anthropic:// needs an API key in ANTHROPIC_API_KEY.",
    );
    await expect(
      openStore("anthropic://memstore_x", { env: { ANTHROPIC_API_KEY: KEY }, expireAfterSeconds: 60 }),
    ).rejects.toBeInstanceOf(StoreSetupError);
    const failed = await openStore("anthropic://memstore_missing", {
      env: { ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: server.url },
    }).catch((e: unknown) => e);
    expect((failed as Error).message).toBe("the memory store API list returned HTTP 404 (not_found_error)");
    expect(JSON.stringify(failed)).not.toContain(KEY);
  });
});
