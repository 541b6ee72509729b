/**
 * The raw ioredis baseline: one key per file, GET for views, GET + SET for edits (no WATCH, no
 * script), SET NX for creates, RENAME / DEL, and SCAN + STRLEN for directory views. Indexed (the load
 * benchmark, many tenants on one server or a cluster): a set per namespace lists its keys instead of a
 * SCAN of the whole keyspace, updated by a second command after each create, delete and rename.
 */
import type { Cluster, Redis } from "ioredis";
import { fail, guarded, listingText, ok, sliceLines } from "./raw-text.js";
import type { RedisCounters } from "./redis-counters.js";
import { type Backend, relativeOf, type Tool, type ToolInput, type ToolOutcome } from "./subject.js";

const globEscape = (text: string): string => text.replace(/[*?[\]\\]/g, "\\$&");

const INDEX = "~index";

const list = async (
  client: Redis | Cluster,
  base: string,
  path: string,
  indexed: boolean,
): Promise<string> => {
  const prefix = relativeOf(path) === "" ? base : `${base}${relativeOf(path)}/`;
  const keys: string[] = [];
  if (indexed) {
    for (const key of await client.smembers(base + INDEX)) if (key.startsWith(prefix)) keys.push(key);
  } else {
    let cursor = "0";
    do {
      const [next, batch] = await (client as Redis).scan(
        cursor,
        "MATCH",
        `${globEscape(prefix)}*`,
        "COUNT",
        1000,
      );
      cursor = next;
      keys.push(...batch);
    } while (cursor !== "0");
  }
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

export const rawRedisTool = (client: Redis | Cluster, base: string, indexed = false): Tool => {
  const key = (path: string) => base + relativeOf(path);
  const index = base + INDEX;
  const run = async (input: ToolInput): Promise<ToolOutcome> => {
    const path = String(input["path"] ?? input["old_path"]);
    switch (input["command"]) {
      case "view": {
        const text = relativeOf(path) === "" ? null : await client.get(key(path));
        if (text !== null) return ok(sliceLines(text, input["view_range"]));
        return ok(await list(client, base, path, indexed));
      }
      case "create": {
        if (!(await client.set(key(path), String(input["file_text"]), "NX"))) return fail("exists");
        if (indexed) await client.sadd(index, key(path));
        return ok("created");
      }
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
      case "delete": {
        if (!(await client.del(key(path)))) return fail("missing");
        if (indexed) await client.srem(index, key(path));
        return ok("deleted");
      }
      case "rename": {
        const to = key(String(input["new_path"]));
        if (!(await client.renamenx(key(path), to))) return fail("exists");
        if (indexed) await client.multi().srem(index, key(path)).sadd(index, to).exec();
        return ok("renamed");
      }
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
