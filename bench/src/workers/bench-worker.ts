/**
 * The Worker the edge benchmark runs inside workerd: `GET /run?store=memory|do|d1&count=n&start=i` runs
 * commands `start`..`start+n-1` of the agent mix on that store, in this Worker, and answers how many
 * storage requests they made. `InMemoryStore` lives in the Worker's memory: the baseline of the same
 * Worker, the same request path, no storage.
 */
import { D1Store, DurableObjectStore } from "@mem/cloudflare";
import { executeCommand, InMemoryStore } from "@mem/core";
import { countingD1, countingNamespace } from "@mem/testkit/cloudflare-counting";

export { MemoryObject } from "@mem/cloudflare";

interface Env {
  MEMORY: unknown;
  DB: unknown;
}

/** One step of the agent mix on file `i`: look, write, edit, read, list, move, delete. */
const mixStep = (n: number): Record<string, unknown> => {
  const file = Math.floor(n / 8);
  const path = `/memories/agent/notes-${file}.md`;
  switch (n % 8) {
    case 0:
      return { command: "view", path: "/memories" };
    case 1:
      return { command: "create", path, file_text: `# Notes ${file}\n- first\n- second\n` };
    case 2:
      return { command: "str_replace", path, old_str: "first", new_str: "1st" };
    case 3:
      return { command: "insert", path, insert_line: 1, insert_text: "- inserted\n" };
    case 4:
      return { command: "view", path };
    case 5:
      return { command: "view", path: "/memories/agent" };
    case 6:
      return { command: "rename", old_path: path, new_path: `${path}.old` };
    default:
      return { command: "delete", path: `${path}.old` };
  }
};

const memory = new InMemoryStore();
let stores: ReturnType<typeof open> | undefined;

/** The stores and their counters, made once per isolate as a Worker would. */
const open = (env: Env) => {
  const rpc = countingNamespace(env.MEMORY);
  const d1 = countingD1(env.DB);
  return {
    rpc,
    d1,
    objects: new DurableObjectStore(rpc.namespace, { name: "bench" }).scope("agent"),
    database: new D1Store(d1.db).scope("agent"),
  };
};

/**
 * `GET /tree?tenant=t&files=n&from=i`: adds files `from`..`n-1` of a tree (20 directories of 5
 * subdirectories) to the D1 tenant, then views `/memories` once (1,000 entries shown at most) and
 * answers the rows D1 read for that view.
 */
const tree = async (env: Env, url: URL): Promise<Response> => {
  stores ??= open(env);
  const { d1 } = stores;
  const store = new D1Store(d1.db).scope(url.searchParams.get("tenant") ?? "tree");
  const files = Number(url.searchParams.get("files") ?? "0");
  for (let i = Number(url.searchParams.get("from") ?? "0"); i < files; i += 1) {
    const path = `/memories/d${i % 20}/s${Math.floor(i / 20) % 5}/f${i}.md`;
    await executeCommand(store, { command: "create", path, file_text: "note\n" });
  }
  const before = d1.rowsRead();
  const viewed = await executeCommand(store, { command: "view", path: "/memories" });
  return Response.json({ rows: d1.rowsRead() - before, isError: viewed.isError });
};

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/tree") return tree(env, url);
    const store = url.searchParams.get("store");
    const count = Number(url.searchParams.get("count") ?? "1");
    const start = Number(url.searchParams.get("start") ?? "0");
    stores ??= open(env);
    const { rpc, d1, objects, database } = stores;
    const rpcsBefore = [...rpc.calls.values()].reduce((a, b) => a + b, 0);
    const tripsBefore = d1.roundTrips();
    const rowsBefore = d1.rowsRead();
    let errors = 0;
    for (let n = start; n < start + count; n += 1) {
      const input = mixStep(n);
      const result =
        store === "do"
          ? await objects.execute(input)
          : await executeCommand(store === "d1" ? database : memory, input);
      if (result.isError) errors += 1;
    }
    const requests =
      store === "do"
        ? [...rpc.calls.values()].reduce((a, b) => a + b, 0) - rpcsBefore
        : d1.roundTrips() - tripsBefore;
    return Response.json({
      errors,
      requests: store === "memory" ? 0 : requests,
      rows: store === "d1" ? d1.rowsRead() - rowsBefore : 0,
    });
  },
};
