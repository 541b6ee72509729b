/**
 * The raw ioredis baseline: one key per file, GET for views, GET + SET for edits (no WATCH, no
 * script), SET NX for creates, RENAME / DEL, and SCAN + STRLEN for directory views.
 */
import type { Redis } from "ioredis";
import { fail, guarded, listingText, ok, sliceLines } from "./raw-text.js";
import type { RedisCounters } from "./redis-counters.js";
import { type Backend, relativeOf, type Tool, type ToolInput, type ToolOutcome } from "./subject.js";

const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, "\\$&");

const list = async (client: Redis, base: string, path: string): Promise<string> => {
  const prefix = relativeOf(path) === "" ? base : `${base}${relativeOf(path)}/`;
  const keys: string[] = [];
  let cursor = "0";
  do {
    const [next, batch] = await client.scan(cursor, "MATCH", `${globEscape(prefix)}*`, "COUNT", 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== "0");
  const entries = new Map<string, number>();
  const files: string[] = [];
  for (const key of keys) {
    const parts = key.slice(prefix.length).split("/");
    if (parts.length > 2) {
      entries.set(`${path}/${parts[0]}/`, 0);
      entries.set(`${path}/${parts[0]}/${parts[1]}/`, 0);
    } else {
      if (parts.length === 2) entries.set(`${path}/${parts[0]}/`, 0);
      files.push(key);
    }
  }
  const pipeline = client.pipeline();
  for (const key of files) pipeline.strlen(key);
  const sizes = (await pipeline.exec()) ?? [];
  files.forEach((key, i) => {
    entries.set(`${path}/${key.slice(prefix.length)}`, Number(sizes[i]?.[1] ?? 0));
  });
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, size]) => ({ path: p, size }));
  return listingText(path, sorted);
};

const rawRedisTool = (client: Redis, base: string): Tool => {
  const key = (path: string) => base + relativeOf(path);
  const run = async (input: ToolInput): Promise<ToolOutcome> => {
    const path = String(input["path"] ?? input["old_path"]);
    switch (input["command"]) {
      case "view": {
        const text = relativeOf(path) === "" ? null : await client.get(key(path));
        if (text !== null) return ok(sliceLines(text, input["view_range"]));
        return ok(await list(client, base, path));
      }
      case "create":
        return (await client.set(key(path), String(input["file_text"]), "NX"))
          ? ok("created")
          : fail("exists");
      case "str_replace": {
        const text = await client.get(key(path));
        const oldStr = String(input["old_str"]);
        if (text === null || !text.includes(oldStr)) return fail("no match");
        await client.set(
          key(path),
          text.replace(oldStr, () => String(input["new_str"] ?? "")),
        );
        return ok("edited");
      }
      case "insert": {
        const text = await client.get(key(path));
        if (text === null) return fail("missing");
        const lines = text.split("\n");
        lines.splice(Number(input["insert_line"]), 0, String(input["insert_text"]).replace(/\n$/, ""));
        await client.set(key(path), lines.join("\n"));
        return ok("edited");
      }
      case "delete":
        return (await client.del(key(path))) ? ok("deleted") : fail("missing");
      case "rename":
        return (await client.renamenx(key(path), key(String(input["new_path"]))))
          ? ok("renamed")
          : fail("exists");
      default:
        return fail("unknown command");
    }
  };
  return {
    exec: guarded(run),
    readText: (path) => client.get(key(path)),
  };
};

export const rawRedisBackend = async (counters: RedisCounters): Promise<Backend> => ({
  async open(ns) {
    return rawRedisTool(counters.client({ maxRetriesPerRequest: 1 }), `raw-${ns}:`);
  },
  requestCounters: () => counters.totals(),
  async close() {},
});
