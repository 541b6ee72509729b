import {
  ancestorsOf,
  compareNames,
  InMemoryStore,
  isListedName,
  listingFromFiles,
  type MemoryStore,
  nameOf,
  ROOT,
} from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import { type Command, Redis, type RedisOptions } from "ioredis";
import { RedisStore, type RedisStoreOptions } from "../src/index.js";

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const textOf = (data: Uint8Array): string => new TextDecoder().decode(data);

/** A redis-server for one test file, plus clients and stores that are all closed by `stop()`. */
export class TestRedis {
  private readonly clients: Redis[] = [];
  private prefixes = 0;
  private constructor(readonly server: RedisServer) {}

  static async start(): Promise<TestRedis> {
    return new TestRedis(await startRedis());
  }

  client(): Redis {
    const client = new Redis(this.server.port, this.server.host, { lazyConnect: false });
    client.on("error", () => {});
    this.clients.push(client);
    return client;
  }

  /** A unique prefix per call, so tests sharing the server never see each other's files. */
  freshPrefix(): string {
    this.prefixes += 1;
    return `test-${this.prefixes}`;
  }

  store(options: Omit<RedisStoreOptions, "client" | "url"> = {}): RedisStore {
    return new RedisStore({ client: this.client(), prefix: this.freshPrefix(), ...options });
  }

  /** A second store over the same keys with its own connection. */
  peer(store: RedisStore, options: Omit<RedisStoreOptions, "client" | "url" | "prefix"> = {}): RedisStore {
    return new RedisStore({ client: this.client(), prefix: store.keyBase, ...options });
  }

  async stop(): Promise<void> {
    for (const client of this.clients) client.disconnect();
    await this.server.stop();
  }
}

export type { MemoryStore };
export { InMemoryStore };

/** A name from its member in a directory's order set, where the bytes 0xEE and 0xEF stand as 0xF5, 0xF6. */
const nameOfOrderKey = (member: Buffer): string =>
  Buffer.from(member.map((b) => (b === 0xf5 ? 0xee : b === 0xf6 ? 0xef : b))).toString("utf8");

const escapeGlob = (text: string): string => text.replace(/[{}*?[\]\\]/g, "\\$&");

/**
 * Reads every key of a store on a standalone server and returns what is wrong with its index: the
 * directory hashes, the size hash and the access-time set must all follow from the files alone.
 */
export const indexProblems = async (store: RedisStore): Promise<string[]> => {
  const client = store.client as Redis;
  const base = store.keyBase;
  const keys = await client.keys(`${escapeGlob(base)}*`);
  const files = new Map<string, number>();
  const dirKeys = new Set<string>();
  const orderKeys = new Set<string>();
  for (const key of keys) {
    const rest = key.slice(base.length);
    if (rest.startsWith("f:")) files.set(rest.slice(2), await client.hstrlen(key, "d"));
    else if (rest.startsWith("d:")) dirKeys.add(rest.slice(2));
    else if (rest.startsWith("o:")) orderKeys.add(rest.slice(2));
    else if (!["z", "t", "u", "s", "seq", "n", "c", "T"].includes(rest)) return [`unexpected key ${rest}`];
  }
  const problems: string[] = [];
  const children = new Map<string, Map<string, string>>();
  for (const path of files.keys()) {
    let child = path;
    let kind = "f";
    for (const dir of ancestorsOf(path)) {
      const map = children.get(dir) ?? new Map<string, string>();
      children.set(dir, map);
      map.set(nameOf(child), kind);
      child = dir;
      kind = "d";
    }
  }
  const expectedDirs = [...children.keys()];
  for (const dir of expectedDirs) {
    const actual = await client.hgetall(`${base}d:${dir}`);
    const expected = Object.fromEntries([...children.get(dir)!].sort());
    const sorted = Object.fromEntries(Object.entries(actual).sort());
    if (JSON.stringify(sorted) !== JSON.stringify(expected)) problems.push(`index of ${dir} is wrong`);
  }
  for (const dir of dirKeys) if (!children.has(dir)) problems.push(`stale directory ${dir}`);
  for (const dir of orderKeys) if (!children.has(dir)) problems.push(`stale order of ${dir}`);
  const counts = await client.hgetall(`${base}n`);
  for (const dir of new Set([...expectedDirs, ...Object.keys(counts)])) {
    const names = [...(children.get(dir)?.keys() ?? [])];
    const order = (await client.zrangeBuffer(`${base}o:${dir}`, 0, -1)).map(nameOfOrderKey);
    if (JSON.stringify(order) !== JSON.stringify([...names].sort(compareNames))) {
      problems.push(`order of ${dir} is wrong`);
    }
    const listed = names.filter(isListedName).length;
    if (Number(counts[dir] ?? 0) !== listed)
      problems.push(`count of ${dir} is ${counts[dir]}, expected ${listed}`);
  }
  const fileList = [...files].map(([path, size]) => ({ path, size }));
  const sizes = await client.hgetall(`${base}z`);
  for (const dir of new Set([ROOT, ...expectedDirs, ...Object.keys(sizes)])) {
    const expected = listingFromFiles(dir, fileList, 0).size;
    const actual = Number(sizes[dir] ?? 0);
    if (expected !== actual) problems.push(`size of ${dir} is ${actual}, expected ${expected}`);
    if (sizes[dir] === "0") problems.push(`zero size kept for ${dir}`);
  }
  const fileCounts = await client.hgetall(`${base}c`);
  for (const dir of new Set([ROOT, ...expectedDirs, ...Object.keys(fileCounts)])) {
    const expected = listingFromFiles(dir, fileList, 0, { countFiles: true }).files ?? 0;
    const actual = Number(fileCounts[dir] ?? 0);
    if (expected !== actual) problems.push(`file count of ${dir} is ${actual}, expected ${expected}`);
    if (fileCounts[dir] === "0") problems.push(`zero file count kept for ${dir}`);
  }
  const usage = await client.hmget(`${base}u`, "f", "b");
  const total = [...files.values()].reduce((a, b) => a + b, 0);
  if (Number(usage[0] ?? 0) !== files.size || Number(usage[1] ?? 0) !== total) {
    problems.push(`usage is ${usage.join("/")}, expected ${files.size}/${total}`);
  }
  // Access times are kept only with expiry (`T` marks them complete); without it the set is never written.
  const accessed = await client.zrange(`${base}t`, 0, -1);
  const expected = (await client.exists(`${base}T`)) === 1 ? [...files.keys()].sort() : [];
  if (JSON.stringify(accessed.sort()) !== JSON.stringify(expected)) {
    problems.push("access times do not match the files");
  }
  return problems;
};

/** Every key on `nodes` with its value as text (strings, hashes, sorted sets, sets, lists): the raw medium. */
export async function dumpKeys(nodes: readonly Redis[]): Promise<{ key: string; value: string }[]> {
  const out: { key: string; value: string }[] = [];
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scanBuffer(cursor, "COUNT", 1000);
      cursor = String(next);
      for (const key of keys) {
        const type = await node.type(key);
        let parts: Buffer[] = [];
        if (type === "string") parts = [(await node.getBuffer(key)) ?? Buffer.alloc(0)];
        else if (type === "hash")
          parts = await node
            .hgetallBuffer(key)
            .then((h) => Object.entries(h).flatMap(([k, v]) => [Buffer.from(k, "latin1"), v]));
        else if (type === "zset") parts = await node.zrangeBuffer(key, 0, -1, "WITHSCORES");
        else if (type === "set") parts = await node.smembersBuffer(key);
        else if (type === "list") parts = await node.lrangeBuffer(key, 0, -1);
        out.push({
          key: key.toString("latin1"),
          value: Buffer.concat(parts.flatMap((p) => [p, Buffer.from([0])])).toString("latin1"),
        });
      }
    } while (cursor !== "0");
  }
  return out;
}

/**
 * A real client whose commands are recorded by name (lower case), through a wrapper around its
 * `sendCommand`; the connection's own set-up (AUTH, the INFO ready check, CLIENT SETINFO) is left out.
 */
export const countingClient = (options: RedisOptions): { client: Redis; sent: string[] } => {
  const client = new Redis(options);
  const sent: string[] = [];
  const send = client.sendCommand.bind(client);
  client.sendCommand = ((command: Command, ...rest: unknown[]) => {
    if (!["info", "client", "auth"].includes(command.name.toLowerCase()))
      sent.push(command.name.toLowerCase());
    return (send as (...args: unknown[]) => unknown)(command, ...rest);
  }) as Redis["sendCommand"];
  return { client, sent };
};

/** The user (`scripts`, password `pw`) that may run scripts but neither load nor call functions, as on a server before Redis 7. */
export const SCRIPTS_USER = { username: "scripts", password: "pw" } as const;
export const addScriptsUser = async (admin: Redis): Promise<void> => {
  await admin.call(
    "ACL",
    "SETUSER",
    SCRIPTS_USER.username,
    "on",
    `>${SCRIPTS_USER.password}`,
    "~*",
    "&*",
    "+@all",
    "-function",
    "-fcall",
    "-fcall_ro",
  );
};
