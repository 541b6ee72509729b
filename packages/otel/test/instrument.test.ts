import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type ExecuteOptions,
  executeCommand,
  InMemoryStore,
  type MemoryStore,
  StoreFailureError,
} from "@mem/core";
import { FsStore } from "@mem/fs";
import { context, SpanStatusCode } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base";
import { afterEach, describe, expect, it } from "vitest";
import { BrokenStore, ContendedStore, everything, startTelemetry, type Telemetry } from "./helpers.js";

let telemetry: Telemetry | undefined;
afterEach(async () => {
  await telemetry?.stop();
  telemetry = undefined;
});

const start = async (options: Parameters<typeof startTelemetry>[0] = {}) => {
  telemetry = await startTelemetry(options);
  return telemetry;
};

const commandSpans = (t: Telemetry) => t.spans().filter((s) => s.name === "execute_tool memory");

describe("command spans", () => {
  it("gives every command one execute_tool span with the GenAI and memory attributes", async () => {
    const t = await start();
    const store = new InMemoryStore();
    const run = (input: object) => executeCommand(store, input);
    await run({ command: "create", path: "/memories/notes/a.md", file_text: "one\ntwo\n" });
    await run({ command: "view", path: "/memories/notes/a.md" });
    await run({ command: "view", path: "/memories" });
    await run({ command: "str_replace", path: "/memories/notes/a.md", old_str: "two", new_str: "three" });
    await run({ command: "insert", path: "/memories/notes/a.md", insert_line: 0, insert_text: "zero" });
    await run({ command: "rename", old_path: "/memories/notes/a.md", new_path: "/memories/b.md" });
    await run({ command: "delete", path: "/memories/b.md" });

    const spans = commandSpans(t);
    expect(spans.map((s) => s.attributes)).toEqual(
      [
        ["create", "/memories/notes/a.md", 0, 8],
        ["view", "/memories/notes/a.md", 8, 0],
        ["view", "/memories", 0, 0],
        ["str_replace", "/memories/notes/a.md", 8, 10],
        ["insert", "/memories/notes/a.md", 10, 15],
        ["rename", "/memories/notes/a.md", 0, 0],
        ["delete", "/memories/b.md", 0, 0],
      ].map(([command, path, read, written]) => ({
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "memory",
        "gen_ai.tool.type": "function",
        "memory.command": command,
        "memory.path": path,
        ...(command === "rename" ? { "memory.new_path": "/memories/b.md" } : {}),
        "memory.store.backend": "memory",
        "memory.outcome": "ok",
        "memory.retries": 0,
        "memory.bytes_read": read,
        "memory.bytes_written": written,
      })),
    );
    for (const span of spans) expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("gives each kind of error result its outcome and error.type", async () => {
    const t = await start();
    const store = new InMemoryStore();
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "x x\n" });
    await store.write("/memories/bin", new Uint8Array([0xff, 0xfe]), { ifAbsent: true });
    const cases: [input: object, options: ExecuteOptions, outcome: string, type: string, on?: MemoryStore][] =
      [
        [{ command: "launch" }, {}, "error", "invalid_input"],
        [{ command: "view", path: "/etc/passwd" }, {}, "error", "invalid_path"],
        [{ command: "view", path: "/memories/../x" }, {}, "error", "invalid_path"],
        [{ command: "view", path: "/memories/a.md", view_range: [9, 10] }, {}, "error", "invalid_input"],
        [{ command: "view", path: "/memories/missing" }, {}, "error", "not_found"],
        [{ command: "view", path: "/memories/bin" }, {}, "error", "not_utf8"],
        [{ command: "create", path: "/memories/a.md", file_text: "" }, {}, "error", "already_exists"],
        [{ command: "create", path: "/memories/a.md/b", file_text: "" }, {}, "error", "not_a_directory"],
        [
          { command: "str_replace", path: "/memories/a.md", old_str: "y", new_str: "" },
          {},
          "error",
          "no_match",
        ],
        [
          { command: "str_replace", path: "/memories/a.md", old_str: "x", new_str: "" },
          {},
          "error",
          "multiple_matches",
        ],
        [
          { command: "insert", path: "/memories/none", insert_line: 0, insert_text: "" },
          {},
          "error",
          "not_found",
        ],
        [{ command: "delete", path: "/memories" }, {}, "error", "invalid_input"],
        [
          { command: "rename", old_path: "/memories/a.md", new_path: "/memories/a.md/c" },
          {},
          "error",
          "invalid_input",
        ],
        [
          { command: "create", path: "/memories/big", file_text: "12345" },
          { maxFileBytes: 4 },
          "refused",
          "too_large",
        ],
        [{ command: "create", path: "/memories/more", file_text: "" }, { maxFiles: 1 }, "refused", "quota"],
        [
          { command: "create", path: "/memories/k", file_text: "key AKIAIOSFODNN7EXAMPLE\n" },
          {},
          "refused",
          "sensitive",
        ],
        [
          { command: "str_replace", path: "/memories/a.md", old_str: "x x\n", new_str: "y" },
          { conflictRetries: 1 },
          "error",
          "conflict",
          new ContendedStore(store, 5),
        ],
        [
          { command: "view", path: "/memories/a.md" },
          {},
          "error",
          "store_failure",
          new BrokenStore(store, "read", () => new StoreFailureError("disk unplugged")),
        ],
        [
          {
            get command(): string {
              throw new Error("hostile");
            },
          },
          {},
          "error",
          "unexpected",
        ],
      ];
    for (const [input, options, , , on] of cases) {
      const result = await executeCommand(on ?? store, input, options);
      expect(result.isError).toBe(true);
    }
    const spans = commandSpans(t).slice(1);
    expect(spans.map((s) => [s.attributes["memory.outcome"], s.attributes["error.type"]])).toEqual(
      cases.map(([, , outcome, type]) => [outcome, type]),
    );
    for (const span of spans) expect(span.status.code).toBe(SpanStatusCode.ERROR);
    const conflict = spans[cases.findIndex(([, , , type]) => type === "conflict")]!;
    expect(conflict.attributes["memory.retries"]).toBe(2);
  });

  it("shows a storage failure in a child span, with the backend, and no message", async () => {
    const t = await start();
    const secret = "postgres://admin:hunter2@db.internal:5432/memory";
    const store = new BrokenStore(
      new InMemoryStore(),
      "read",
      () => new Error(`connect ECONNREFUSED ${secret}`),
    );
    const result = await executeCommand(store, { command: "view", path: "/memories/a.md" });
    expect(result.content).toBe("Error: view failed for /memories/a.md: unexpected storage error");

    const [command] = commandSpans(t);
    const read = t.spans().find((s) => s.name === "memory.store.read")!;
    expect(read.parentSpanContext?.spanId).toBe(command!.spanContext().spanId);
    expect(read.spanContext().traceId).toBe(command!.spanContext().traceId);
    expect(read.attributes).toEqual({
      "memory.store.operation": "read",
      "memory.store.backend": "memory",
      "memory.path": "/memories/a.md",
      "error.type": "Error",
    });
    expect(read.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(command!.attributes["error.type"]).toBe("store_failure");
    await t.collected();
    expect(everything(t.spans())).not.toContain("hunter2");
    expect(JSON.stringify(t.points("memory.command.errors"))).not.toContain("hunter2");
  });

  it("never records a secret-looking file_text, refused or redacted", async () => {
    const t = await start({ recordActor: true, recordTenant: true });
    const store = new InMemoryStore();
    const secret = "AKIAIOSFODNN7EXAMPLE";
    const input = { command: "create", path: "/memories/keys.md", file_text: `aws ${secret}\n` };
    await executeCommand(store, input, { actor: "agent" });
    await executeCommand(store, input, { sensitive: { mode: "redact" } });
    await executeCommand(store, { command: "view", path: "/memories/keys.md" });
    const all = everything(t.spans());
    expect(all).not.toContain(secret);
    expect(all).not.toContain("aws");
    expect(commandSpans(t).map((s) => s.attributes["memory.outcome"])).toEqual(["refused", "ok", "ok"]);
  });

  it("records tenant and actor only when the application opts in, and the path unless it opts out", async () => {
    const options = { actor: "ops-bot", tenant: "alice@example.com" };
    const input = { command: "create", path: "/memories/a", file_text: "" };
    let t = await start();
    await executeCommand(new InMemoryStore(), input, options);
    let [span] = commandSpans(t);
    expect(span!.attributes["memory.tenant"]).toBeUndefined();
    expect(span!.attributes["memory.actor"]).toBeUndefined();
    expect(everything(t.spans())).not.toContain("alice@example.com");
    await t.stop();

    t = await start({ recordTenant: true, recordActor: true, recordPath: false });
    await executeCommand(new InMemoryStore(), input, options);
    [span] = commandSpans(t);
    expect(span!.attributes["memory.tenant"]).toBe("alice@example.com");
    expect(span!.attributes["memory.actor"]).toBe("ops-bot");
    expect(everything(t.spans())).not.toContain("/memories/a");
  });

  it("names the fs backend on each storage call of an FsStore", async () => {
    const root = await mkdtemp(join(tmpdir(), "mem-otel-"));
    const store = new FsStore({ root });
    try {
      const t = await start();
      await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "hi\n" });
      await executeCommand(store, {
        command: "str_replace",
        path: "/memories/a.md",
        old_str: "hi",
        new_str: "ho",
      });
      const children = t.spans().filter((s) => s.name.startsWith("memory.store."));
      expect(children.length).toBeGreaterThanOrEqual(2);
      for (const child of children) expect(child.attributes["memory.store.backend"]).toBe("fs");
      expect(commandSpans(t).map((s) => s.attributes["memory.store.backend"])).toEqual(["fs", "fs"]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("makes the command span a child of the application's active span", async () => {
    const manager = new AsyncLocalStorageContextManager().enable();
    context.setGlobalContextManager(manager);
    try {
      const t = await start();
      const outer = new BasicTracerProvider().getTracer("app");
      const turn = await outer.startActiveSpan("agent turn", async (span) => {
        await executeCommand(new InMemoryStore(), { command: "view", path: "/memories" });
        span.end();
        return span.spanContext();
      });
      const [command] = commandSpans(t);
      expect(command!.parentSpanContext?.spanId).toBe(turn.spanId);
      expect(command!.spanContext().traceId).toBe(turn.traceId);
    } finally {
      context.disable();
    }
  });

  it("stops recording once uninstrumented", async () => {
    const t = await start();
    await executeCommand(new InMemoryStore(), { command: "view", path: "/memories" });
    t.instrumentation.uninstrument();
    t.instrumentation.uninstrument();
    await executeCommand(new InMemoryStore(), { command: "view", path: "/memories" });
    expect(commandSpans(t)).toHaveLength(1);
  });

  it("refuses options of the wrong type with a TypeError naming them", async () => {
    const { instrument } = await import("../src/index.js");
    expect(() => instrument({ recordTenant: "yes" as never })).toThrow("recordTenant must be a boolean");
  });
});

describe("metrics", () => {
  it("counts commands, errors, refusals, retries and bytes written as they happened", async () => {
    const t = await start();
    const store = new InMemoryStore();
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "one\n" });
    await executeCommand(store, { command: "create", path: "/memories/b.md", file_text: "two!\n" });
    await executeCommand(store, { command: "view", path: "/memories/a.md" });
    await executeCommand(store, { command: "view", path: "/memories/none" });
    await executeCommand(store, {
      command: "create",
      path: "/memories/k",
      file_text: "AKIAIOSFODNN7EXAMPLE",
    });
    await executeCommand(new ContendedStore(store, 2), {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "one",
      new_str: "1",
    });
    await t.collected();

    const sorted = <T extends { attributes: Record<string, unknown> }>(points: T[]) =>
      points.sort((a, b) => JSON.stringify(a.attributes).localeCompare(JSON.stringify(b.attributes)));
    expect(sorted(t.points("memory.command.duration"))).toEqual(
      sorted([
        { attributes: { "memory.command": "create", "memory.outcome": "ok" }, value: 2 },
        { attributes: { "memory.command": "create", "memory.outcome": "refused" }, value: 1 },
        { attributes: { "memory.command": "view", "memory.outcome": "ok" }, value: 1 },
        { attributes: { "memory.command": "view", "memory.outcome": "error" }, value: 1 },
        { attributes: { "memory.command": "str_replace", "memory.outcome": "ok" }, value: 1 },
      ]),
    );
    expect(t.points("memory.command.errors")).toEqual([
      { attributes: { "memory.command": "view", "error.type": "not_found" }, value: 1 },
    ]);
    expect(t.points("memory.guard.refusals")).toEqual([
      { attributes: { "memory.command": "create", "error.type": "sensitive" }, value: 1 },
    ]);
    expect(t.points("memory.conflict.retries")).toEqual([
      { attributes: { "memory.command": "str_replace" }, value: 2 },
    ]);
    // "x x one\n" after two lost races, then "one" → "1".
    expect(sorted(t.points("memory.bytes.written"))).toEqual(
      sorted([
        { attributes: { "memory.command": "create" }, value: 9 },
        { attributes: { "memory.command": "str_replace" }, value: 6 },
      ]),
    );
  });
});
