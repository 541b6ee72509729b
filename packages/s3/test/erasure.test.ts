import { executeCommand } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Store } from "../src/index.js";
import { freshPrefix, type S3Fixture, startFixture } from "./helpers.js";

let fx: S3Fixture;

beforeAll(async () => {
  fx = await startFixture();
});

// Stopping empties the bucket, which holds the 10,000 tenants of the paging test.
afterAll(async () => {
  await fx?.stop();
}, 300_000);

/** Every key and body under `prefix` that names `id` or holds it. */
const remnants = async (prefix: string, id: string): Promise<string[]> => {
  const tree = await fx.tree(prefix);
  return Object.entries(tree)
    .filter(([key, body]) => key.includes(id) || body.includes(id))
    .map(([key]) => key);
};

describe("S3Store erasure", () => {
  it("purge removes a tenant with a directory rename in flight (journal and half-copied objects)", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    const gone = store.scope("gonetenant");
    for (const name of ["a", "b", "c"]) {
      await executeCommand(gone, {
        command: "create",
        path: `/memories/d/${name}.md`,
        file_text: `gonetenant ${name}\n`,
      });
    }
    await executeCommand(store.scope("kept"), {
      command: "create",
      path: "/memories/k.md",
      file_text: "kept\n",
    });
    const keptBefore = Object.entries(await fx.tree(prefix)).filter(([key]) => key.includes("/kept/"));
    // The rename stops after its journal and one copy: every later copy fails for good.
    fx.server.failNext({ op: "CopyObject", skip: 1, count: Number.POSITIVE_INFINITY, status: 500 });
    const renamed = await executeCommand(gone, {
      command: "rename",
      old_path: "/memories/d",
      new_path: "/memories/e",
    });
    fx.server.clearFailures();
    expect(renamed.isError).toBe(true);
    const before = await fx.tree(prefix);
    expect(Object.keys(before).some((key) => key.includes(".mem-s3-rename"))).toBe(true);
    expect(await gone.purge()).toEqual({ files: 4, bytes: 4 * "gonetenant a\n".length });
    expect(await remnants(prefix, "gonetenant")).toEqual([]);
    expect(Object.entries(await fx.tree(prefix)).filter(([key]) => key.includes("/kept/"))).toEqual(
      keptBefore,
    );
  });

  it("a purge that fails midway (the second batch of deletes) completes when run again", async () => {
    const prefix = freshPrefix();
    const store = fx.store(prefix);
    const scoped = store.scope("halfway");
    const base = `${prefix}.mem-s3-tenants/halfway/`;
    await fx.seed(Array.from({ length: 1100 }, (_, i) => ({ key: `${base}f${i}.md`, body: `halfway ${i}` })));
    const removeRule = fx.server.failNext({
      op: "DeleteObjects",
      skip: 1,
      count: Number.POSITIVE_INFINITY,
      status: 500,
    });
    await expect(scoped.purge()).rejects.toThrow();
    removeRule();
    const left = await fx.keys(base);
    expect(left.length).toBe(100);
    const leftBytes = left
      .map((key) => `halfway ${/f(\d+)\.md$/.exec(key)![1]}`.length)
      .reduce((a, b) => a + b, 0);
    expect(await scoped.purge()).toEqual({ files: 100, bytes: leftBytes });
    expect(await fx.keys(base)).toEqual([]);
    await expect(store.purge()).rejects.toThrow(TypeError);
  });

  it(
    "tenants() pages through 10,000 tenants with one ListObjectsV2 per page",
    { timeout: 600_000 },
    async () => {
      const prefix = freshPrefix();
      const store = new S3Store({ client: fx.client, bucket: fx.server.bucket, prefix });
      const ids = Array.from({ length: 10_000 }, (_, i) => `t${String(i).padStart(5, "0")}`);
      await fx.seed(ids.map((id) => ({ key: `${prefix}.mem-s3-tenants/${id}/x.md`, body: id })));
      const seen: string[] = [];
      let after: string | undefined;
      let pages = 0;
      while (true) {
        fx.server.requests.reset();
        const page = await store.tenants(after === undefined ? { limit: 1000 } : { after, limit: 1000 });
        expect(fx.server.requests.counts()).toEqual({ ListObjectsV2: 1 });
        seen.push(...page.tenants.map((t) => t.id));
        pages += 1;
        after = page.next;
        if (after === undefined) break;
      }
      expect(pages).toBe(10);
      expect(seen).toEqual(ids);
    },
  );
});
