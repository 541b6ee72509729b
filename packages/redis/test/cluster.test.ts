import { runConformance } from "@mem/conformance";
import { executeCommand, ROOT } from "@mem/core";
import { type RedisCluster, type RedisServer, startRedisCluster } from "@mem/testkit";
import { Cluster } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore, recommendedClusterOptions } from "../src/index.js";
import { bytes, dumpKeys, textOf } from "./helpers.js";

let cluster: RedisCluster;
let client: Cluster;
const extraClients: Cluster[] = [];
let stores = 0;

const newClient = (options: { enableAutoPipelining?: boolean } = {}): Cluster => {
  const created = new Cluster([...cluster.startupNodes], { ...recommendedClusterOptions, ...options });
  created.on("error", () => {});
  return created;
};

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3 });
  client = newClient();
});
afterAll(async () => {
  client?.disconnect();
  for (const extra of extraClients) extra.disconnect();
  await cluster?.stop();
});

/** A store with a cluster client of its own, closed with the store. */
class PeerStore extends RedisStore {
  override async close(): Promise<void> {
    (this.client as Cluster).disconnect();
  }
}

runConformance<RedisStore>({
  name: "RedisStore on a 3-master Redis Cluster",
  create: () => {
    stores += 1;
    return new RedisStore({ client, prefix: `cluster-conformance-${stores}` });
  },
  // Peers batch with ioredis's auto-pipelining (per node on a Cluster); the store's own client does not.
  peer: (store) =>
    new PeerStore({ client: newClient({ enableAutoPipelining: true }), prefix: store.keyBase }),
  destroy: async (store) => {
    await store.delete(ROOT);
    await client.del(`${store.keyBase}seq`);
  },
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => {
    stores += 1;
    return new RedisStore({ client, prefix: `cluster-conformance-expiring-${stores}`, ...expiry });
  },
  erasure: { dump: () => dumpKeys(client.nodes("master")) },
});

describe("RedisStore on Redis Cluster", () => {
  it("loads its function library into every master it calls", async () => {
    const parent = new RedisStore({ client, prefix: "library" });
    for (let i = 0; i < 24; i++)
      await parent.scope(`t${i}`).write("/memories/a.md", bytes("a"), { ifAbsent: true });
    for (const node of client.nodes("master")) {
      const libraries = (await node.call("FUNCTION", "LIST", "LIBRARYNAME", "mem_store_*")) as unknown[];
      expect(libraries).toHaveLength(1);
    }
  });

  it("keeps each tenant's keys in one slot of its own, over the parent's client", async () => {
    const parent = new RedisStore({ client, prefix: "tenants-parent" });
    const slots = new Set<number>();
    for (const tenant of ["alice", "bob", "carol", "dave"]) {
      const scoped = parent.scope(tenant);
      expect(scoped.client).toBe(client);
      await scoped.write("/memories/a/b.md", bytes(tenant), { ifAbsent: true });
      await scoped.rename("/memories/a", "/memories/c");
      await executeCommand(scoped, {
        command: "str_replace",
        path: "/memories/c/b.md",
        old_str: tenant,
        new_str: "x",
      });
      const keys = [
        `${scoped.keyBase}seq`,
        `${scoped.keyBase}f:/memories/c/b.md`,
        `${scoped.keyBase}d:/memories/c`,
      ];
      const keySlots = new Set(
        await Promise.all(keys.map(async (key) => Number(await client.call("CLUSTER", "KEYSLOT", key)))),
      );
      expect(keySlots.size).toBe(1);
      slots.add([...keySlots][0]!);
      expect(await scoped.usage()).toEqual({ files: 1, bytes: 1 });
    }
    expect(slots.size).toBeGreaterThan(1);
    expect(await parent.usage()).toEqual({ files: 0, bytes: 0 });
  });

  it("spreads stores over the masters while each store's keys stay on one", async () => {
    const owners = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const store = new RedisStore({ client, prefix: `spread-${i}` });
      await store.write("/memories/a dir/ünï.txt", bytes(`store ${i}`), { ifAbsent: true });
      await store.write("/memories/b/c/d.txt", bytes("d"), { ifAbsent: true });
      await store.rename("/memories/b", "/memories/a dir/b");
      const slot = Number(await client.call("CLUSTER", "KEYSLOT", `${store.keyBase}seq`));
      const holders: number[] = [];
      for (const node of cluster.nodes) {
        const direct = client.nodes("master").find((n) => n.options.port === node.port);
        const count = Number(await direct?.call("CLUSTER", "COUNTKEYSINSLOT", String(slot)));
        if (count > 0) holders.push(node.port);
        // 2 files, 4 directory hashes (/memories, a dir, a dir/b, a dir/b/c) and their 4 order sets,
        // sizes, file counts, listed-children counts, usage, counter (no access times: expiry is off).
        if (count > 0) expect(count, `keys of ${store.keyBase}`).toBe(15);
      }
      expect(holders).toHaveLength(1);
      owners.add(holders[0]!);
      expect(sortedPaths(await store.list("/memories", 2))).toEqual([
        "/memories/a dir",
        "/memories/a dir/b",
        "/memories/a dir/ünï.txt",
      ]);
      expect(textOf((await store.read("/memories/a dir/ünï.txt"))!.data)).toBe(`store ${i}`);
    }
    expect(owners.size).toBeGreaterThan(1);
  });

  it("serves the tool end to end through a second cluster client", async () => {
    const own = newClient();
    extraClients.push(own);
    const store = new RedisStore({ client: own, prefix: "tool" });
    expect(
      await executeCommand(store, { command: "create", path: "/memories/notes/x.md", file_text: "a\nb\n" }),
    ).toEqual({ content: "File created successfully at: /memories/notes/x.md", isError: false });
    expect(
      (
        await executeCommand(store, {
          command: "str_replace",
          path: "/memories/notes/x.md",
          old_str: "b",
          new_str: "c",
        })
      ).isError,
    ).toBe(false);
    expect((await executeCommand(store, { command: "view", path: "/memories" })).content).toBe(
      "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n" +
        "4B\t/memories\n4B\t/memories/notes/\n4B\t/memories/notes/x.md",
    );
  });
});

/** Commands the masters ran since their last `CONFIG RESETSTAT`, from `INFO commandstats` (no proxy of the client). */
const commandsRun = async (): Promise<number> => {
  let total = 0;
  for (const node of client.nodes("master")) {
    const info = await node.info("commandstats");
    for (const [, name, calls] of info.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
      // The counting itself, and the client's own view of the slots.
      if (!/^(info|config|cluster)/.test(name!)) total += Number(calls);
    }
  }
  return total;
};
const resetStats = () => Promise.all(client.nodes("master").map((node) => node.config("RESETSTAT")));

describe("tenants() and purge() on Redis Cluster", () => {
  it("pages 600 tenants spread over the masters with at most 1 + 2 × page commands a page", async () => {
    const store = new RedisStore({ client, prefix: "cluster-many" });
    const ids = Array.from({ length: 600 }, (_, i) => `t${String(i).padStart(4, "0")}`);
    for (let i = 0; i < ids.length; i += 100) {
      await Promise.all(
        ids
          .slice(i, i + 100)
          .map((id) => store.scope(id).write("/memories/x.md", bytes(id), { ifAbsent: true })),
      );
    }
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      await resetStats();
      const page = await store.tenants(after === undefined ? { limit: 200 } : { after, limit: 200 });
      const commands = await commandsRun();
      // The count sees the page's reads (a ZRANGE, then per tenant its counters and nested index)...
      expect(commands).toBeGreaterThanOrEqual(1 + page.tenants.length);
      // ...and they are bounded by the page, not by the 600 tenants.
      expect(commands).toBeLessThanOrEqual(1 + 2 * 200);
      for (const t of page.tenants) {
        expect(t).toEqual({ id: t.id, files: 1, bytes: 5 });
        seen.push(t.id);
      }
      after = page.next;
      pages += 1;
    } while (after !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids);
  });

  it("purges a tenant whose nested tenant lives on another master, leaving no key of either", async () => {
    const store = new RedisStore({ client, prefix: "cluster-purge" });
    const id = `gone${Math.random().toString(36).slice(2, 8)}`;
    const outer = store.scope(id);
    // A nested tenant whose slot is on another master than the tenant's own.
    const ownerOf = async (base: string) => {
      const slot = Number(await client.call("CLUSTER", "KEYSLOT", `${base}seq`));
      const shards = (await client.call("CLUSTER", "SLOTS")) as [number, number, [string, number]][];
      return shards.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
    };
    const home = await ownerOf(outer.keyBase);
    let nested: RedisStore | undefined;
    for (let i = 0; !nested && i < 100; i++) {
      const candidate = outer.scope(`n${i}`);
      if ((await ownerOf(candidate.keyBase)) !== home) nested = candidate;
    }
    await executeCommand(outer, { command: "create", path: "/memories/a.md", file_text: `${id}-outer\n` });
    await executeCommand(nested!, { command: "create", path: "/memories/b.md", file_text: `${id}-nested\n` });
    await executeCommand(store.scope("kept"), {
      command: "create",
      path: "/memories/k.md",
      file_text: "kept\n",
    });
    const mentions = async () =>
      (await dumpKeys(client.nodes("master"))).filter((r) => r.key.includes(id) || r.value.includes(id));
    expect((await mentions()).length).toBeGreaterThan(2);
    expect(await outer.purge()).toEqual({ files: 2, bytes: 2 * id.length + 15 });
    expect(await mentions()).toEqual([]);
    expect((await store.tenants()).tenants.map((t) => t.id)).toEqual(["kept"]);
    expect(await outer.purge()).toEqual({ files: 0, bytes: 0 });
  });
});

describe("a cluster node that dies and comes back", () => {
  it("gives error results for the stores it holds, then works again without a restart", async () => {
    const own = newClient();
    extraClients.push(own);
    const store = new RedisStore({ client: own, prefix: "node-failure", operationTimeoutMs: 3_000 });
    expect(
      (await executeCommand(store, { command: "create", path: "/memories/a", file_text: "a" })).isError,
    ).toBe(false);
    const slot = Number(await own.call("CLUSTER", "KEYSLOT", `${store.keyBase}seq`));
    let victim: RedisServer | undefined;
    for (const node of cluster.nodes) {
      const direct = own.nodes("master").find((n) => n.options.port === node.port);
      if (Number(await direct?.call("CLUSTER", "COUNTKEYSINSLOT", String(slot))) > 0) victim = node;
    }
    await victim!.kill();
    const failed = await executeCommand(store, { command: "view", path: "/memories/a" });
    expect(failed.isError).toBe(true);
    expect(failed.content).toMatch(/^Error: view failed for \/memories\/a: [a-z][a-z -]+$/);
    expect(failed.content).not.toMatch(/redis error$/);
    const ghost = await executeCommand(store, {
      command: "create",
      path: "/memories/ghost",
      file_text: "boo",
    });
    expect(ghost.isError).toBe(true);
    await victim!.start();
    for (;;) {
      const result = await executeCommand(store, { command: "create", path: "/memories/b", file_text: "b" });
      if (!result.isError) break;
      expect(result.content).toMatch(
        /^Error: create failed for \/memories\/b: [a-z][a-z -]+(\. The change may still be applied; view \/memories\/b to check\.)?$/,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect((await executeCommand(store, { command: "view", path: "/memories/b" })).content).toBe(
      "Here's the content of /memories/b with line numbers:\n     1\tb",
    );
    // The create that failed while the node was down was not queued to run after it came back.
    expect(await store.stat("/memories/ghost")).toBeNull();
  });
});

const sortedPaths = (listing: { entries: { path: string }[] } | null) =>
  listing?.entries.map((entry) => entry.path).sort();
