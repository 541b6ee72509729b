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
  it("batches 40 concurrent edits of one file through one client: none lost, none retried, 2 calls a batch", async () => {
    const { client, sent } = counted();
    const store = new RedisStore({ client, prefix: "turns" }).scope("t");
    await executeCommand(store, {
      command: "create",
      path: "/memories/log.md",
      file_text: "# log\nstate 0\n",
    });
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
          : // Each replacement finds what the one before it wrote: they apply in arrival order.
            executeCommand(store, {
              command: "str_replace",
              path: "/memories/log.md",
              old_str: `state ${i / 2}\n`,
              new_str: `state ${i / 2 + 1}\n`,
            }),
      ),
    );
    expect(results.filter((result) => result.isError)).toEqual([]);
    const calls = sent.filter((name) => name === "fcall").length - before;
    // Each batch is a read and a conditional write; the first edit goes alone, the others wait for it
    // and go together: far fewer than the 80 calls of one read and write per edit, and never a retry.
    expect(calls % 2).toBe(0);
    expect(calls).toBeLessThanOrEqual(8);
    const text = textOf((await store.read("/memories/log.md"))!.data);
    for (let i = 1; i < 40; i += 2) expect(text).toContain(`line ${i}\n`);
    expect(text).toContain("state 20\n");
  });

  it("fails only the edit whose change fails; the others of its batch land", async () => {
    const store = new RedisStore({ client: counted().client, prefix: "failing" });
    await store.write("/memories/a.md", bytes("a"), { ifAbsent: true });
    const outcomes = await Promise.allSettled([
      store.update("/memories/a.md", (current) => bytes(`${textOf(current)}1`)),
      store.update("/memories/a.md", (current) => bytes(`${textOf(current)}2`)),
      store.update("/memories/a.md", () => {
        throw new RangeError("refused");
      }),
      store.update("/memories/a.md", () => null),
      store.update("/memories/a.md", (current) => bytes(`${textOf(current)}3`)),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      "fulfilled",
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    expect(textOf((await store.read("/memories/a.md"))!.data)).toBe("a123");
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
