import { executeCommand, InMemoryStore, type MemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { describe, expect, it } from "vitest";
import {
  describeStore,
  importAdapter,
  type OpenContext,
  openStore,
  parseStoreUrl,
  registerScheme,
  type SchemeOptions,
  StoreSetupError,
  StoreUrlError,
  storeUrlForms,
} from "../src/index.js";

const KEY = Buffer.alloc(32, 3).toString("base64");

// One InMemoryStore per name, so that a second openStore of the same URL sees what the first wrote.
const memories = new Map<string, InMemoryStore>();
const calls: { url: string; context: OpenContext }[] = [];
registerScheme(
  "memory",
  (url, context) => {
    calls.push({ url, context });
    const name = url.slice("memory:".length);
    const store = memories.get(name) ?? new InMemoryStore();
    memories.set(name, store);
    return store;
  },
  { form: "memory:<name>", describe: (url) => `in-memory store ${url.slice("memory:".length)}` },
);

describe("registerScheme", () => {
  it("opens a registered scheme, for executeCommand like any built-in one", async () => {
    const store = await openStore("memory:notes", { env: {} });
    expect(
      await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "hi\n" }),
    ).toEqual({ content: "File created successfully at: /memories/a.md", isError: false });
    const again = await openStore("MEMORY:notes", { env: {} });
    expect((await executeCommand(again, { command: "view", path: "/memories/a.md" })).content).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     1\thi",
    );
    expect(describeStore(parseStoreUrl("memory:notes?tenant=bob&history"))).toBe(
      "in-memory store notes, tenant bob, with history",
    );
  });

  it("gives the factory the plain URL and the context; encrypted+, ?tenant= and ?history go around it", async () => {
    calls.length = 0;
    const store = await openStore("encrypted+memory:sealed?tenant=alice&history", {
      env: { MEMORY_KEY: KEY },
      cwd: "/somewhere",
      create: false,
      expireAfterSeconds: 60,
    });
    expect(calls).toEqual([
      {
        url: "memory:sealed",
        context: { env: { MEMORY_KEY: KEY }, cwd: "/somewhere", create: false, expireAfterSeconds: 60 },
      },
    ]);
    expect(store).toBeInstanceOf(HistoryStore);
    await executeCommand(store, { command: "create", path: "/memories/s.md", file_text: "secret\n" });
    const inner = memories.get("sealed")!.scope("alice");
    const raw = await inner.read("/memories/s.md");
    expect(raw).not.toBeNull();
    expect(Buffer.from(raw!.data).includes(Buffer.from("secret"))).toBe(false);
    await store.close?.();
  });

  it("lists a registered form in usage messages", () => {
    expect(storeUrlForms()).toContain("memory:<name>");
    expect(() => parseStoreUrl("nope:x")).toThrow(/Use one of: fs:<directory>, .*memory:<name>, encrypted\+/);
  });

  it("refuses bad names, bad factories and bad options with a TypeError naming them", () => {
    const factory = () => new InMemoryStore();
    for (const name of ["", "1abc", "My", "a_b", "a:b", "encrypted", "encrypted+x", "x".repeat(33)]) {
      expect(() => registerScheme(name, factory), name).toThrow(TypeError);
    }
    expect(() => registerScheme(42 as unknown as string, factory)).toThrow(/name must be .* got number/);
    expect(() => registerScheme("ok", "no" as unknown as () => MemoryStore)).toThrow(
      /factory must be a function/,
    );
    expect(() => registerScheme("ok", factory, null as unknown as SchemeOptions)).toThrow(
      /options must be an object/,
    );
    expect(() => registerScheme("ok", factory, { form: "" })).toThrow(/options\.form/);
    expect(() => registerScheme("ok", factory, { describe: "x" as unknown as () => string })).toThrow(
      /options\.describe/,
    );
    expect(() => registerScheme("ok", factory, { replace: 1 as unknown as boolean })).toThrow(
      /options\.replace/,
    );
    expect(() => parseStoreUrl("ok:x")).toThrow(StoreUrlError);
  });

  it("refuses to take a built-in or registered name again unless replace: true", async () => {
    const factory = () => new InMemoryStore();
    expect(() => registerScheme("redis", factory)).toThrow(
      new TypeError(
        'registerScheme: "redis:" is already a built-in scheme; pass { replace: true } to replace it',
      ),
    );
    expect(() => registerScheme("memory", factory)).toThrow(/"memory:" is already registered/);
    registerScheme("rediss", factory, { replace: true, form: "rediss://<anything>" });
    const store = await openStore("rediss://cache.example:6380/x", { env: {} });
    expect(store).toBeInstanceOf(InMemoryStore);
    expect(describeStore(parseStoreUrl("rediss://app:hunter2@cache.example/x"))).toBe(
      "rediss://app:***@cache.example/x",
    );
    // redis:// itself is still the built-in scheme.
    expect(parseStoreUrl("redis://h:1/p").backend).toEqual({
      kind: "redis",
      url: "redis://h:1",
      prefix: "p",
    });
  });

  it("masks credentials in the description and in errors of a registered scheme", async () => {
    registerScheme("vault", (url) => {
      throw new StoreUrlError(`Store URL "${url}" names no vault`);
    });
    const url = "vault://app:hunter2@vault.example/team?token=s3cret";
    expect(describeStore(parseStoreUrl(url))).toBe("vault://app:***@vault.example/team?token=***");
    const error = await openStore(url, { env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUrlError);
    expect((error as Error).message).toBe(
      'Store URL "vault://app:***@vault.example/team?token=***" names no vault',
    );
    registerScheme("leaky", () => new InMemoryStore(), { describe: (u) => `leaky at ${u}` });
    expect(describeStore(parseStoreUrl("leaky://u:hunter2@h/x"))).toBe("leaky at leaky://u:***@h/x");
    registerScheme("empty", () => ({}) as MemoryStore);
    await expect(openStore("empty:x", { env: {} })).rejects.toThrow(
      new StoreSetupError('The factory of "empty:" URLs returned no store.'),
    );
  });
});

describe("an adapter that is not installed", () => {
  // A package that does not exist: Node's resolver really fails, as it does for a peer left out.
  const missing = "@mem/not-installed-adapter";

  it("is a one-line StoreSetupError naming what to install", async () => {
    registerScheme("missing", () =>
      importAdapter(
        { needed: "missing://", name: missing, install: ["some-driver"] },
        () => import(missing),
      ).then(() => new InMemoryStore()),
    );
    const error = await openStore("missing://h/x", { env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreSetupError);
    expect((error as Error).message).toBe(
      "missing:// needs @mem/not-installed-adapter: npm install @mem/not-installed-adapter some-driver",
    );
  });

  it("keeps other failures of an import as what they are", async () => {
    const error = await importAdapter({ needed: "x:", name: "@mem/x" }, () =>
      Promise.reject(new Error("boom")),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreSetupError);
    expect((error as Error).message).toBe("Could not load @mem/x: boom");
  });
});
