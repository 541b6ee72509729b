import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RedisServer, startRedis } from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { runMem } from "./helpers/run-mem.js";
import { KEY } from "./helpers/stores.js";

const PNG = Buffer.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0xff, 0xd9]);
const env = { MEMORY_KEY: KEY };

let dir: string;
let redis: RedisServer;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "mem-put-"));
  writeFileSync(join(dir, "chart.png"), PNG);
  writeFileSync(join(dir, "photo.jpg"), JPEG);
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const mem = (args: string[]) => runMem(args, { env });
let n = 0;
const urls = () => [
  `fs:${join(dir, `store-${++n}`)}`,
  `encrypted+fs:${join(dir, `sealed-${n}`)}`,
  `${redis.url}/put-${n}`,
];

describe("mem put", () => {
  it("writes a local file through the store; view shows its text form, cat its bytes", async () => {
    for (const url of urls()) {
      const put = await mem(["put", url, join(dir, "chart.png"), "/memories/img/chart.png"]);
      expect(put).toMatchObject({ code: 0, out: "Put /memories/img/chart.png (16 bytes).\n" });
      const viewed = await mem(["view", url, "/memories/img/chart.png"]);
      expect(viewed).toMatchObject({
        code: 0,
        out: "Here's the image /memories/img/chart.png: image/png, 16 bytes\n",
      });
      const cat = await mem(["cat", url, "/memories/img/chart.png"]);
      expect(cat.code).toBe(0);
      expect(cat.stdout).toEqual(PNG);
      const store = await openStore(url, { env });
      try {
        expect(Buffer.from((await store.read("/memories/img/chart.png"))?.data ?? [])).toEqual(PNG);
      } finally {
        await store.close?.();
      }
    }
  });

  it("refuses to overwrite without --overwrite, and replaces with it", async () => {
    const [url] = urls() as [string];
    await mem(["put", url, join(dir, "chart.png"), "/memories/a.jpg"]);
    const refused = await mem(["put", url, join(dir, "photo.jpg"), "/memories/a.jpg"]);
    expect(refused).toMatchObject({
      code: 1,
      stderr: "mem: /memories/a.jpg already exists; add --overwrite to replace it.\n",
    });
    expect((await mem(["cat", url, "/memories/a.jpg"])).stdout).toEqual(PNG);
    const replaced = await mem([
      "put",
      url,
      join(dir, "photo.jpg"),
      "/memories/a.jpg",
      "--overwrite",
      "--json",
    ]);
    expect(replaced.code).toBe(0);
    expect(JSON.parse(replaced.out)).toEqual({ path: "/memories/a.jpg", size: 12, replaced: true });
    expect((await mem(["view", url, "/memories/a.jpg"])).out).toBe(
      "Here's the image /memories/a.jpg: image/jpeg, 12 bytes\n",
    );
  });

  it("checks the path like the tool does and never replaces a directory", async () => {
    const [url] = urls() as [string];
    const reserved = await mem(["put", url, join(dir, "chart.png"), "/memories/.mem-history/x.png"]);
    expect(reserved).toMatchObject({
      code: 2,
      stderr: "mem: The path /memories/.mem-history/x.png is not allowed: it uses a reserved name\n",
    });
    const outside = await mem(["put", url, join(dir, "chart.png"), "/etc/x.png"]);
    expect(outside.code).toBe(2);
    await mem(["put", url, join(dir, "chart.png"), "/memories/d/x.png"]);
    const onDir = await mem(["put", url, join(dir, "chart.png"), "/memories/d", "--overwrite"]);
    expect(onDir).toMatchObject({ code: 1, stderr: "mem: /memories/d is a directory.\n" });
    const missing = await mem(["put", url, join(dir, "nope.png"), "/memories/n.png"]);
    expect(missing).toMatchObject({
      code: 1,
      stderr: `mem: cannot read ${join(dir, "nope.png")} (ENOENT).\n`,
    });
    expect((await mem(["view", url, "/memories/n.png"])).code).toBe(1);
  });
});
