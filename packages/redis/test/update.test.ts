import { executeCommand } from "@mem/core";
import { type RedisServer, startRedis } from "@mem/testkit";
import type { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { bytes, countingClient, textOf } from "./helpers.js";

// `RedisStore.update`, core's native edit: edits of one file through one client take turns in the
// process; a writer elsewhere makes an edit read again. Commands are counted by a wrapper around the real
// client's sendCommand.
let server: RedisServer;
const clients: Redis[] = [];

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server?.stop();
});

const counted = () => {
  const counting = countingClient({ port: server.port, host: server.host });
  clients.push(counting.client);
  return counting;
};

describe("RedisStore.update", () => {
  it("lets 40 concurrent edits of one file through one client take turns: none lost, none retried", async () => {
    const { client, sent } = counted();
    const store = new RedisStore({ client, prefix: "turns" }).scope("t");
    await executeCommand(store, { command: "create", path: "/memories/log.md", file_text: "# log\n" });
    const before = sent.filter((name) => name === "fcall").length;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        i % 2
          ? executeCommand(store, {
              command: "insert",
              path: "/memories/log.md",
              insert_line: 1,
              insert_text: `line ${i}`,
            })
          : executeCommand(store, {
              command: "str_replace",
              path: "/memories/log.md",
              old_str: "# log",
              new_str: "# log",
            }),
      ),
    );
    expect(results.filter((result) => result.isError)).toEqual([]);
    // A read and a conditional write per edit, and nothing more: no edit lost a race.
    expect(sent.filter((name) => name === "fcall").length - before).toBe(80);
    const text = textOf((await store.read("/memories/log.md"))!.data);
    for (let i = 1; i < 40; i += 2) expect(text).toContain(`line ${i}\n`);
  });

  it("reads again and runs the change again when another process wrote in between", async () => {
    const other = new RedisStore({ client: counted().client, prefix: "race" });
    let interfered = false;
    class Interfered extends RedisStore {
      override async read(path: string) {
        const file = await super.read(path);
        if (file && !interfered) {
          interfered = true;
          await other.write(path, bytes("theirs\n"), { ifVersion: file.version });
        }
        return file;
      }
    }
    const store = new Interfered({ client: counted().client, prefix: "race" });
    await store.write("/memories/a.md", bytes("first\n"), { ifAbsent: true });
    const seen: string[] = [];
    const found = await store.update("/memories/a.md", (current) => {
      seen.push(textOf(current));
      return bytes(`${textOf(current)}mine\n`);
    });
    expect(found).toBe(true);
    expect(seen).toEqual(["first\n", "theirs\n"]);
    expect(textOf((await store.read("/memories/a.md"))!.data)).toBe("theirs\nmine\n");
    expect(await store.update("/memories/missing.md", () => bytes("x"))).toBe(false);
  });
});
