import { randomBytes } from "node:crypto";
import { InMemoryStore, MEMORY_METRICS } from "@mem/core";
import { HistoryStore } from "@mem/history";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterEach, describe, expect, it } from "vitest";
import { callMemoryTool, type HttpServerHandle, serveHttp } from "../src/index.js";
import { httpClient } from "./helpers/mcp-client.js";

const servers: HttpServerHandle[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** Collects the server's JSON log lines. */
const logLines = () => {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
};

const serve = async (store: InMemoryStore | HistoryStore, options: Parameters<typeof serveHttp>[1] = {}) => {
  const server = await serveHttp(store, { port: 0, log: false, ...options });
  servers.push(server);
  return server;
};

const scrape = async (url: string, token?: string) => {
  const response = await fetch(url.replace(/\/mcp$/, "/metrics"), {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
};

/** The commands counted by the duration histogram (its `_count` samples), by command and outcome. */
const counts = (text: string): Record<string, number> => {
  const name = `${MEMORY_METRICS.duration.prometheus}_count`;
  const lines = text.matchAll(
    new RegExp(`^${name}\\{memory_command="(\\w+)",memory_outcome="(\\w+)"\\} (\\d+)$`, "gm"),
  );
  return Object.fromEntries(
    [...lines].map(([, command, outcome, n]) => [`${command} ${outcome}`, Number(n)]),
  );
};

/** A counter's samples as `{ "label=value,...": value }`. */
const samples = (text: string, name: string): Record<string, number> => {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  return Object.fromEntries(
    (family?.metrics ?? []).map((m) => [
      Object.entries(m.labels ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
      Number(m.value),
    ]),
  );
};

describe("/metrics", () => {
  it("serves exactly the families of MEMORY_METRICS, OpenTelemetry's names as Prometheus names them", async () => {
    const server = await serve(new InMemoryStore());
    const client = await httpClient(server.url);
    await callMemoryTool(client, { command: "view", path: "/memories" });
    await client.close();
    const families = parsePrometheusTextFormat((await scrape(server.url)).text);
    expect(families.map((f) => [f.name, f.type.toLowerCase()]).sort()).toEqual(
      Object.values(MEMORY_METRICS)
        .map((m) => [m.prometheus, m.kind])
        .sort(),
    );
  });

  it("counts the commands run, by command and outcome, in Prometheus's text format", async () => {
    const server = await serve(new InMemoryStore());
    const client = await httpClient(server.url);
    const call = (input: Record<string, unknown>) => callMemoryTool(client, input);
    await call({ command: "create", path: "/memories/a.md", file_text: "one\n" });
    await call({ command: "create", path: "/memories/b.md", file_text: "two\n" });
    await call({ command: "view", path: "/memories/a.md" });
    await call({ command: "view", path: "/memories/missing" });
    await call({ command: "create", path: "/memories/k", file_text: "AKIAIOSFODNN7EXAMPLE" });
    await call({ command: "str_replace", path: "/memories/a.md", old_str: "one", new_str: "1" });
    await client.close();

    const scraped = await scrape(server.url);
    expect(scraped.status).toBe(200);
    expect(scraped.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(counts(scraped.text)).toEqual({
      "create ok": 2,
      "view ok": 1,
      "view error": 1,
      "create refused": 1,
      "str_replace ok": 1,
    });
    expect(scraped.text).toContain(
      'memory_command_duration_seconds_count{memory_command="view",memory_outcome="error"} 1',
    );
    expect(samples(scraped.text, "memory_command_errors_total")).toEqual({
      "memory_command=view,error_type=not_found": 1,
    });
    expect(samples(scraped.text, "memory_guard_refusals_total")).toEqual({
      "memory_command=create,error_type=sensitive": 1,
    });
    expect(samples(scraped.text, "memory_bytes_written_bytes_total")).toEqual({
      "memory_command=create": 8,
      "memory_command=str_replace": 2,
    });
    expect(scraped.text).not.toContain("AKIAIOSFODNN7EXAMPLE");
  });

  it("sits behind the same tokens as /mcp, and can be turned off", async () => {
    const token = randomBytes(24).toString("base64url");
    const guarded = await serve(new InMemoryStore(), { token });
    expect((await scrape(guarded.url)).status).toBe(401);
    expect((await scrape(guarded.url, token)).status).toBe(200);
    const off = await serve(new InMemoryStore(), { metrics: false });
    expect((await scrape(off.url)).status).toBe(404);
  });
});

describe("/metrics with tenant tokens", () => {
  it("answers only to an operator token, never to a tenant's", async () => {
    const root = new InMemoryStore();
    const alice = randomBytes(24).toString("base64url");
    const bob = randomBytes(24).toString("base64url");
    const operator = randomBytes(24).toString("base64url");
    const tenantFromToken = { [alice]: "alice", [bob]: "bob" };
    const closed = await serve(root, { tenantFromToken });
    const client = await httpClient(closed.url, alice);
    await callMemoryTool(client, { command: "create", path: "/memories/a.md", file_text: "one\n" });
    await client.close();
    // No operator token: nobody reads the counts of every tenant.
    for (const presented of [alice, bob, undefined]) {
      const scraped = await scrape(closed.url, presented);
      expect(scraped.status).toBe(401);
      expect(scraped.text).not.toContain("# TYPE memory_command_duration_seconds histogram");
    }
    const open = await serve(root, { tenantFromToken, metricsToken: operator });
    expect((await scrape(open.url, alice)).status).toBe(401);
    const scraped = await scrape(open.url, operator);
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain("# TYPE memory_command_duration_seconds histogram");
    // The operator's token opens /metrics only, not anyone's memory.
    expect(
      (await fetch(open.url, { method: "POST", headers: { authorization: `Bearer ${operator}` } })).status,
    ).toBe(401);
    await expect(serve(root, { tenantFromToken, metricsToken: "short" })).rejects.toThrow(/metricsToken/);
  });
});

describe("log", () => {
  it("logs start, stop, refused requests and store failures as JSON lines, with no token, content or secret", async () => {
    const token = randomBytes(24).toString("base64url");
    const secret = "redis://default:s3cr3t-pass@cache.internal:6379";
    const store = new InMemoryStore();
    let failing = false;
    const original = store.read.bind(store);
    store.read = async (path: string) => {
      if (failing) throw new Error(`connect ECONNREFUSED ${secret}`);
      return original(path);
    };
    const log = logLines();
    const server = await serveHttp(store, { port: 0, token, log: log.destination });
    const client = await httpClient(server.url, token);
    await callMemoryTool(client, { command: "create", path: "/memories/a.md", file_text: "private note\n" });
    failing = true;
    const failed = await callMemoryTool(client, { command: "view", path: "/memories/a.md" });
    expect(failed.content).toBe("Error: view failed for /memories/a.md: unexpected storage error");
    failing = false;
    await client.close();
    const wrong = await fetch(server.url, {
      method: "POST",
      headers: { authorization: "Bearer wrong-token-123456" },
    });
    expect(wrong.status).toBe(401);
    await server.close();

    const entries = log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries.map((e) => e["event"])).toEqual(["start", "store_failure", "auth_failure", "stop"]);
    expect(entries[1]).toMatchObject({
      command: "view",
      errorType: "store_failure",
      backend: "memory",
      level: 50,
    });
    expect(entries[2]).toMatchObject({ method: "POST", path: "/mcp", status: 401 });
    const all = log.lines.join("");
    for (const hidden of [token, "wrong-token-123456", secret, "s3cr3t", "private note"]) {
      expect(all).not.toContain(hidden);
    }
  });
});

describe("actor", () => {
  it("names the token's tenant as the actor of each change, so history shows who made it", async () => {
    const alice = randomBytes(24).toString("base64url");
    const bob = randomBytes(24).toString("base64url");
    const store = new HistoryStore(new InMemoryStore());
    const server = await serve(store, { tenantFromToken: { [alice]: "alice", [bob]: "bob" } });
    const path = "/memories/notes.md";
    for (const [token, text] of [
      [alice, "a\n"],
      [bob, "b\n"],
    ] as const) {
      const client = await httpClient(server.url, token);
      await callMemoryTool(client, { command: "create", path, file_text: text });
      await callMemoryTool(client, { command: "str_replace", path, old_str: text.trim(), new_str: "x" });
      await client.close();
    }
    expect((await store.scope!("alice").versions(path)).map((v) => [v.command, v.actor])).toEqual([
      ["str_replace", "alice"],
    ]);
    expect((await store.scope!("bob").versions(path)).map((v) => [v.command, v.actor])).toEqual([
      ["str_replace", "bob"],
    ]);
  });

  it("names the server's actor option with a single token or none", async () => {
    const store = new HistoryStore(new InMemoryStore());
    const server = await serve(store, { actor: "desktop" });
    const client = await httpClient(server.url);
    await callMemoryTool(client, { command: "create", path: "/memories/a", file_text: "1" });
    await callMemoryTool(client, { command: "delete", path: "/memories/a" });
    await client.close();
    expect((await store.versions("/memories/a")).map((v) => [v.command, v.actor])).toEqual([
      ["delete", "desktop"],
    ]);
  });
});
