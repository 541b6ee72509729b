import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  allFenced,
  exitOf,
  fenceCommandResults,
  fenceMarkers,
  fenceViolations,
  outputOf,
  raceFenceWriter,
  startFixture,
  stopFixtures,
} from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedisStore } from "../src/index.js";
import { dumpKeys, TestRedis } from "./helpers.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
let redis: TestRedis;
beforeAll(async () => {
  redis = await TestRedis.start();
});
afterAll(() => redis?.stop());
afterAll(stopFixtures);

const writer = (prefix: string, tenant: string, ...mode: string[]) => {
  const child = startFixture(packageDir, "fence-writer.ts", [prefix, tenant, ...mode]);
  child.stdin?.write(`redis://${redis.server.host}:${redis.server.port}\n`);
  return child;
};

const results = async (prefix: string, tenant: string) => {
  const child = writer(prefix, tenant, "commands");
  child.stdin?.end();
  return fenceCommandResults(await outputOf(child));
};

describe("the erasure fence in Redis", () => {
  it(
    "refuses every write of another process to the fenced tenant and its nested tenants until the purge is re-run",
    { timeout: 120_000 },
    async () => {
      const prefix = redis.freshPrefix();
      const client = redis.client();
      const store = new RedisStore({ client, prefix });
      const scopes = { t: store.scope("t"), "t/n": store.scope("t").scope("n"), u: store.scope("u") };
      for (const scope of Object.values(scopes)) {
        await scope.write("/memories/a.md", new TextEncoder().encode("alpha\n"), { ifAbsent: true });
      }
      const dump = async () =>
        (await dumpKeys([client]))
          .filter((r) => r.key.includes(`{${prefix}:tenant:t`))
          .map((r) => r.key + r.value);
      // What a purge interrupted after its fences leaves: the fence of the tenant and its nested tenant.
      await client.set(`{${prefix}:tenant:t}:x`, "1");
      await client.set(`{${prefix}:tenant:t:tenant:n}:x`, "1");
      const before = (await dump()).sort();
      expect(await results(prefix, "t")).toEqual(allFenced());
      expect(await results(prefix, "t/n")).toEqual(allFenced());
      expect((await results(prefix, "u")).map((r) => r.isError)).toEqual([false, false, false, false, true]);
      expect((await dump()).sort()).toEqual(before);
      // Running the purge again erases the tenants and removes the fences: writable again.
      expect(await scopes.t.purge()).toEqual({ files: 2, bytes: 12 });
      expect(await dump()).toEqual([]);
      expect((await results(prefix, "t"))[0]).toEqual({
        isError: false,
        content: "File created successfully at: /memories/new.md",
      });
    },
  );

  it(
    "leaves no file written before or during a purge when another process writes in a loop meanwhile",
    { timeout: 180_000 },
    async () => {
      const prefix = redis.freshPrefix();
      const client = redis.client();
      const store = new RedisStore({ client, prefix });
      // Files of a nested tenant too, so the purge has a pass over several key bases to make.
      for (let i = 0; i < 200; i++) {
        await store
          .scope("racing")
          .scope("inner")
          .write(`/memories/n${i}.md`, new TextEncoder().encode("n"), {
            ifAbsent: true,
          });
      }
      const child = writer(prefix, "racing", "loop", "8");
      const { summary, started, purged } = await raceFenceWriter(child, () => store.scope("racing").purge());
      expect(summary.acked.filter(([, at]) => at < started).length).toBeGreaterThanOrEqual(1);
      expect(purged.files).toBeGreaterThanOrEqual(200);
      const raw = (await dumpKeys([client])).filter((r) => r.key.includes(`{${prefix}:tenant:racing`));
      expect(
        fenceViolations(
          summary,
          started,
          raw.flatMap((r) => fenceMarkers(r.value)),
        ),
      ).toEqual([]);
      expect(raw.filter((r) => r.key.includes(":tenant:inner"))).toEqual([]);
      expect(await exitOf(child)).toMatchObject({ code: 0 });
    },
  );
});
