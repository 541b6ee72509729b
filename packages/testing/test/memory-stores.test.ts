import { createHash } from "node:crypto";
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ScriptedMemoryStores, startScriptedMemoryStores } from "../src/memory-stores/index.js";

let server: ScriptedMemoryStores;
let client: Anthropic;
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

beforeAll(async () => {
  server = await startScriptedMemoryStores({
    actors: { "session-key": { type: "session_actor", session_id: "sesn_1" } },
  });
  client = new Anthropic({ apiKey: "test-key", baseURL: server.url, maxRetries: 0 });
});
afterAll(() => server.close());

const memories = () => client.beta.memoryStores.memories;

describe("scripted Memory Stores API through the SDK", () => {
  it("creates, retrieves with full content and lists with basic view", async () => {
    const store = server.createStore();
    const created = await memories().create(store, { path: "/notes/a.md", content: "hello" });
    expect(created.content).toBeNull();
    expect(created.content_sha256).toBe(sha("hello"));
    expect(created.content_size_bytes).toBe(5);
    expect(created.id).toMatch(/^mem_/);
    const got = await memories().retrieve(created.id, { memory_store_id: store });
    expect(got.content).toBe("hello");
    const page = await memories().list(store, { path_prefix: "/notes/" });
    expect(page.data.map((m) => m.path)).toEqual(["/notes/a.md"]);
  });

  it("refuses overlapping paths with a path conflict naming the blocking memory", async () => {
    const store = server.createStore();
    const file = await memories().create(store, { path: "/a", content: "x" });
    const error = await memories()
      .create(store, { path: "/a/b", content: "y" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.ConflictError);
    const body = (error as InstanceType<typeof Anthropic.ConflictError>).error as {
      error: { type: string; conflicting_path: string; conflicting_memory_id: string };
    };
    expect(body.error).toMatchObject({
      type: "memory_path_conflict_error",
      conflicting_path: "/a",
      conflicting_memory_id: file.id,
    });
  });

  it("applies content_sha256 preconditions, and accepts a request that finds its own content", async () => {
    const store = server.createStore();
    const m = await memories().create(store, { path: "/p", content: "one" });
    const stale = await memories()
      .update(m.id, {
        memory_store_id: store,
        content: "two",
        precondition: { type: "content_sha256", content_sha256: sha("zzz") },
      })
      .catch((e: unknown) => e);
    expect((stale as { status: number }).status).toBe(409);
    expect((stale as { error: { error: { type: string } } }).error.error.type).toBe(
      "memory_precondition_failed_error",
    );
    const ok = await memories().update(m.id, {
      memory_store_id: store,
      content: "two",
      precondition: { type: "content_sha256", content_sha256: sha("one") },
    });
    expect(ok.content_sha256).toBe(sha("two"));
    // The same request again (as after a lost answer): the memory already holds it, so it succeeds.
    const again = await memories().update(m.id, {
      memory_store_id: store,
      content: "two",
      precondition: { type: "content_sha256", content_sha256: sha("one") },
    });
    expect(again.memory_version_id).toBe(ok.memory_version_id);
    const wrongDelete = await memories()
      .delete(m.id, { memory_store_id: store, expected_content_sha256: sha("one") })
      .catch((e: unknown) => e);
    expect((wrongDelete as { status: number }).status).toBe(409);
    await memories().delete(m.id, { memory_store_id: store, expected_content_sha256: sha("two") });
    const gone = await memories()
      .retrieve(m.id, { memory_store_id: store })
      .catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("pages with cursors and rolls deeper memories up into prefixes at depth 1", async () => {
    const store = server.createStore();
    for (let i = 0; i < 45; i++)
      await memories().create(store, { path: `/d/f${String(i).padStart(2, "0")}`, content: "" });
    await memories().create(store, { path: "/d/sub/x", content: "" });
    await memories().create(store, { path: "/d/sub/y", content: "" });
    const seen: string[] = [];
    for await (const item of memories().list(store, { path_prefix: "/d/", depth: 1, limit: 10 }))
      seen.push(item.path);
    expect(seen).toHaveLength(46);
    expect(seen.at(-1)).toBe("/d/sub/");
    const all: string[] = [];
    for await (const item of memories().list(store, {})) all.push(item.path);
    expect(all).toHaveLength(47);
    const full = await memories()
      .list(store, { view: "full", limit: 21 })
      .catch((e: unknown) => e);
    expect((full as { status: number }).status).toBe(400);
  });

  it("enforces the documented limits", async () => {
    const store = server.createStore();
    const refused = async (params: { path: string; content: string }) =>
      (
        (await memories()
          .create(store, params)
          .catch((e: unknown) => e)) as { status?: number }
      ).status;
    expect(await refused({ path: "/x", content: "a".repeat(102_401) })).toBe(400);
    expect(await refused({ path: `/${Array(21).fill("s").join("/")}`, content: "" })).toBe(400);
    expect(await refused({ path: "/a\u200bb", content: "" })).toBe(400);
    expect(await refused({ path: "/a\u2028b", content: "" })).toBe(400);
    expect(await refused({ path: "/e\u0301", content: "" })).toBe(400);
    expect(await refused({ path: "/a//b", content: "" })).toBe(400);
    expect(await refused({ path: "/a/../b", content: "" })).toBe(400);
    expect(await refused({ path: `/${"a".repeat(1024)}`, content: "" })).toBe(400);
    const ok = await memories().create(store, {
      path: `/${Array(20).fill("s").join("/")}`,
      content: "a".repeat(102_400),
    });
    expect(ok.content_size_bytes).toBe(102_400);
    // Paths are case-sensitive.
    await memories().create(store, { path: "/Case", content: "" });
    await memories().create(store, { path: "/case", content: "" });
  });

  it("records versions with created_by, newest first, and redacts them", async () => {
    const store = server.createStore();
    const sessionClient = new Anthropic({ apiKey: "session-key", baseURL: server.url, maxRetries: 0 });
    const m = await memories().create(store, { path: "/v", content: "1" });
    await sessionClient.beta.memoryStores.memories.update(m.id, { memory_store_id: store, content: "2" });
    await memories().delete(m.id, { memory_store_id: store });
    const versions = (await client.beta.memoryStores.memoryVersions.list(store, { memory_id: m.id })).data;
    expect(versions.map((v) => v.operation)).toEqual(["deleted", "modified", "created"]);
    expect(versions[1]?.created_by).toEqual({ type: "session_actor", session_id: "sesn_1" });
    expect(versions[2]?.created_by).toMatchObject({ type: "api_actor" });
    const first = await client.beta.memoryStores.memoryVersions.retrieve(versions[2]?.id as string, {
      memory_store_id: store,
    });
    expect(first.content).toBe("1");
    const redacted = await client.beta.memoryStores.memoryVersions.redact(versions[2]?.id as string, {
      memory_store_id: store,
    });
    expect(redacted.redacted_at).not.toBeNull();
    expect(redacted.path).toBeNull();
    const after = await client.beta.memoryStores.memoryVersions.retrieve(versions[2]?.id as string, {
      memory_store_id: store,
    });
    expect(after.content).toBeNull();
    expect(after.content_sha256).toBeNull();
  });

  it("refuses requests without the beta header or a key", async () => {
    const store = server.createStore();
    const noBeta = await fetch(`${server.url}/v1/memory_stores/${store}/memories`, {
      headers: { "x-api-key": "k" },
    });
    expect(noBeta.status).toBe(400);
    expect(((await noBeta.json()) as { error: { type: string } }).error.type).toBe("invalid_request_error");
    const noKey = await fetch(`${server.url}/v1/memory_stores/${store}/memories`, {
      headers: { "anthropic-beta": "agent-memory-2026-07-22" },
    });
    expect(noKey.status).toBe(401);
  });

  it("loses an answer on request, after applying the change", async () => {
    const store = server.createStore();
    server.inject("POST memories", "drop-answer");
    const lost = await memories()
      .create(store, { path: "/lost", content: "x" })
      .catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(Anthropic.APIConnectionError);
    const page = await memories().list(store, {});
    expect(page.data.map((m) => m.path)).toEqual(["/lost"]);
  });
});
