import { S3Client } from "@aws-sdk/client-s3";
import { executeCommand, ROOT } from "@mem/core";
import { S3Store } from "@mem/s3";
import { type S3TestServer, startS3 } from "@mem/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HistoryStore } from "../src/index.js";

let s3: S3TestServer;
let client: S3Client;
beforeAll(async () => {
  s3 = await startS3();
  client = new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    credentials: s3.credentials,
    forcePathStyle: true,
  });
});
afterAll(async () => {
  client?.destroy();
  await s3?.stop();
});

describe("HistoryStore over S3Store, versions under a second prefix", () => {
  it("restores a deleted file and the files of a renamed directory", { timeout: 120_000 }, async () => {
    const files = new S3Store({ client, bucket: s3.bucket, prefix: "t1/files/" });
    const versions = new S3Store({ client, bucket: s3.bucket, prefix: "t1/versions/" });
    const store = new HistoryStore(files, { history: versions });
    const run = (input: object) => executeCommand(store, input);
    await run({ command: "create", path: "/memories/a.md", file_text: "alpha\n" });
    await run({ command: "create", path: "/memories/d/x.md", file_text: "x\n" });
    await run({ command: "str_replace", path: "/memories/a.md", old_str: "alpha", new_str: "beta" });
    await run({ command: "delete", path: "/memories/a.md" });
    await run({ command: "rename", old_path: "/memories/d", new_path: "/memories/e" });
    expect(await store.paths()).toEqual(["/memories/a.md", "/memories/d/x.md"]);
    const [lastA, firstA] = await store.versions("/memories/a.md");
    await store.restore("/memories/a.md", firstA!.id);
    const [lastX] = await store.versions("/memories/d/x.md");
    await store.restore("/memories/d/x.md", lastX!.id);
    const text = async (path: string) => new TextDecoder().decode((await store.read(path))!.data);
    expect(await text("/memories/a.md")).toBe("alpha\n");
    expect(await text("/memories/d/x.md")).toBe("x\n");
    expect(await text("/memories/e/x.md")).toBe("x\n");
    expect(lastA).toBeDefined();
    expect((await files.list(ROOT, 5))?.entries.map((e) => e.path).sort()).toEqual([
      "/memories/a.md",
      "/memories/d",
      "/memories/d/x.md",
      "/memories/e",
      "/memories/e/x.md",
    ]);
    await files.delete(ROOT);
    await versions.delete(ROOT);
  });
});
