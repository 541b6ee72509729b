import { createHash, randomBytes } from "node:crypto";
import { request } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type S3TestServer, startS3 } from "../src/s3/index.js";

let s3: S3TestServer;

beforeAll(async () => {
  s3 = await startS3({ bucket: "kit-bucket" });
});

afterAll(async () => {
  await s3?.stop();
});

beforeEach(() => {
  s3.clearFailures();
  s3.requests.reset();
});

const url = (key: string) =>
  `${s3.endpoint}/${s3.bucket}/${key.split("/").map(encodeURIComponent).join("/")}`;

const put = (key: string, body: string, headers: Record<string, string> = {}) =>
  fetch(url(key), { method: "PUT", body, headers });

const get = async (key: string): Promise<{ status: number; body: string; etag: string | null }> => {
  const res = await fetch(url(key));
  return { status: res.status, body: await res.text(), etag: res.headers.get("etag") };
};

describe("startS3", () => {
  it("serves a bucket through the proxy and directly", async () => {
    expect((await put("plain/a.txt", "one")).status).toBe(200);
    expect(await get("plain/a.txt")).toMatchObject({ status: 200, body: "one" });
    const direct = await fetch(`${s3.directEndpoint}/${s3.bucket}/plain/a.txt`);
    expect(await direct.text()).toBe("one");
  });

  it("refuses If-None-Match: * when the key exists and leaves the object alone", async () => {
    expect((await put("inm/a.txt", "first", { "if-none-match": "*" })).status).toBe(200);
    const second = await put("inm/a.txt", "second", { "if-none-match": "*" });
    expect(second.status).toBe(412);
    expect(await second.text()).toContain("<Code>PreconditionFailed</Code>");
    expect((await get("inm/a.txt")).body).toBe("first");
  });

  it("honours If-Match only with the current ETag", async () => {
    await put("im/a.txt", "v1");
    const { etag } = await get("im/a.txt");
    expect(etag).toMatch(/^".+"$/);
    expect((await put("im/a.txt", "v2", { "if-match": '"0000"' })).status).toBe(412);
    expect((await get("im/a.txt")).body).toBe("v1");
    expect((await put("im/a.txt", "v2", { "if-match": etag! })).status).toBe(200);
    expect((await get("im/a.txt")).body).toBe("v2");
    expect((await put("im/a.txt", "v3", { "if-match": etag! })).status).toBe(412);
    expect((await put("im/missing.txt", "x", { "if-match": etag! })).status).toBe(412);
    expect((await get("im/missing.txt")).status).toBe(404);
  });

  it("makes a precondition check and its write one step", async () => {
    await put("race/a.txt", "base");
    const { etag } = await get("race/a.txt");
    const statuses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        put("race/a.txt", `writer ${i}`, { "if-match": etag! }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 412)).toHaveLength(7);
    const creates = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        put("race/new.txt", `c${i}`, { "if-none-match": "*" }).then((r) => r.status),
      ),
    );
    expect(creates.filter((s) => s === 200)).toHaveLength(1);
  });

  it("counts requests per operation", async () => {
    await put("count/a.txt", "a");
    await get("count/a.txt");
    await fetch(url("count/a.txt"), { method: "HEAD" });
    await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2&prefix=count%2F`);
    await fetch(url("count/a.txt"), { method: "DELETE" });
    expect(s3.requests.counts()).toEqual({
      PutObject: 1,
      GetObject: 1,
      HeadObject: 1,
      ListObjectsV2: 1,
      DeleteObject: 1,
    });
    expect(s3.requests.total()).toBe(5);
    expect(s3.requests.records.map((r) => r.key)).toEqual([
      "count/a.txt",
      "count/a.txt",
      "count/a.txt",
      undefined,
      "count/a.txt",
    ]);
  });

  it("injects failures after skipping matching requests, then recovers", async () => {
    await put("fail/a.txt", "a");
    s3.failNext({ op: "GetObject", key: "fail/a.txt", skip: 1, count: 2, status: 500 });
    expect((await get("fail/a.txt")).status).toBe(200);
    const failed = await get("fail/a.txt");
    expect(failed.status).toBe(500);
    expect(failed.body).toContain("<Code>InternalError</Code>");
    expect((await get("fail/a.txt")).status).toBe(500);
    expect((await get("fail/a.txt")).status).toBe(200);
    expect(s3.requests.records.filter((r) => r.injected)).toHaveLength(2);
  });

  it("removes a rule and defaults to one 503 SlowDown", async () => {
    await put("fail/b.txt", "b");
    const remove = s3.failNext({ op: "PutObject" });
    remove();
    expect((await put("fail/b.txt", "b2")).status).toBe(200);
    s3.failNext({ method: "get" });
    const res = await get("fail/b.txt");
    expect(res.status).toBe(503);
    expect(res.body).toContain("SlowDown");
    expect((await get("fail/b.txt")).body).toBe("b2");
  });

  it("holds a hung request until the client gives up", async () => {
    await put("hang/a.txt", "a");
    s3.failNext({ op: "GetObject", hang: true });
    await expect(fetch(url("hang/a.txt"), { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    s3.clearFailures();
    expect((await get("hang/a.txt")).body).toBe("a");
  });

  it("drops the answer after the server applied the request, per request kind", async () => {
    s3.failNext({ op: "PutObject", conditional: true, drop: "response" });
    // A plain PutObject does not match a rule for conditional ones.
    expect((await put("drop/plain.txt", "plain")).status).toBe(200);
    await expect(put("drop/a.txt", "applied", { "if-none-match": "*" })).rejects.toThrow();
    expect(await get("drop/a.txt")).toMatchObject({ status: 200, body: "applied" });
    // The rule is used up: the same request now gets the server's own answer.
    expect((await put("drop/a.txt", "again", { "if-none-match": "*" })).status).toBe(412);
    expect(s3.requests.records.map((r) => [r.op, r.status, r.injected])).toEqual([
      ["PutObject", 200, false],
      ["PutObject", 0, true],
      ["GetObject", 200, false],
      ["PutObject", 412, false],
    ]);

    s3.failNext({ op: "CopyObject", drop: "response" });
    await expect(
      fetch(url("drop/b.txt"), {
        method: "PUT",
        headers: { "x-amz-copy-source": `/${s3.bucket}/drop/a.txt` },
      }),
    ).rejects.toThrow();
    expect((await get("drop/b.txt")).body).toBe("applied");

    s3.failNext({ op: "DeleteObject", drop: "response" });
    await expect(fetch(url("drop/b.txt"), { method: "DELETE" })).rejects.toThrow();
    expect((await get("drop/b.txt")).status).toBe(404);

    s3.failNext({ op: "DeleteObjects", drop: "response" });
    const batch =
      "<Delete><Object><Key>drop/a.txt</Key></Object><Object><Key>drop/plain.txt</Key></Object></Delete>";
    await expect(
      fetch(`${s3.endpoint}/${s3.bucket}?delete`, { method: "POST", body: batch }),
    ).rejects.toThrow();
    expect((await get("drop/a.txt")).status).toBe(404);
    expect((await get("drop/plain.txt")).status).toBe(404);

    await put("drop/c.txt", "c");
    s3.failNext({ op: "GetObject", drop: "response" });
    await expect(get("drop/c.txt")).rejects.toThrow();
    expect((await get("drop/c.txt")).body).toBe("c");
    // The write lock was released after each dropped answer: writes still go through.
    expect((await put("drop/c.txt", "c2")).status).toBe(200);
  });

  it("drops a request before the server sees it", async () => {
    s3.failNext({ op: "PutObject", drop: "request" });
    await expect(put("dropreq/a.txt", "never")).rejects.toThrow();
    expect((await get("dropreq/a.txt")).status).toBe(404);
    expect(s3.requests.records[0]).toMatchObject({ op: "PutObject", status: 0, injected: true });
  });

  it("faults a repeatable fraction of matching requests with a seeded rate", async () => {
    await put("rate/a.txt", "a");
    const run = async () => {
      s3.clearFailures();
      s3.failNext({ op: "GetObject", rate: 0.3, seed: 7, count: Number.POSITIVE_INFINITY, status: 500 });
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await get("rate/a.txt")).status);
      return statuses;
    };
    const first = await run();
    const failed = first.filter((s) => s === 500).length;
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(40);
    expect(first.filter((s) => s !== 500).every((s) => s === 200)).toBe(true);
    expect(await run()).toEqual(first);
  });

  it("copies objects whose keys hold reserved URL characters", async () => {
    const key = "copy/x+y&z=1 ü,$;@:.txt";
    await put(key, "payload");
    const res = await fetch(url("copy/dest.txt"), {
      method: "PUT",
      headers: { "x-amz-copy-source": `/${s3.bucket}/${key.split("/").map(encodeURIComponent).join("/")}` },
    });
    expect(res.status).toBe(200);
    expect(s3.requests.counts().CopyObject).toBe(1);
    expect((await get("copy/dest.txt")).body).toBe("payload");
  });

  it("enforces x-amz-copy-source-if-match on CopyObject", async () => {
    await put("copyif/src.txt", "s");
    const res = await fetch(url("copyif/dst.txt"), {
      method: "PUT",
      headers: {
        "x-amz-copy-source": `/${s3.bucket}/copyif/src.txt`,
        "x-amz-copy-source-if-match": '"nope"',
      },
    });
    expect(res.status).toBe(412);
    expect((await get("copyif/dst.txt")).status).toBe(404);
  });
});

describe("whole objects", () => {
  const etagOf = (bytes: Uint8Array) => `"${createHash("md5").update(bytes).digest("hex")}"`;

  const getBytes = async (key: string, signal?: AbortSignal) => {
    const res = await fetch(url(key), signal ? { signal } : {});
    return { status: res.status, bytes: Buffer.from(await res.arrayBuffer()), etag: res.headers.get("etag") };
  };

  /** Starts a PutObject that announces more bytes than it sends, sends `sent`, then hangs up. */
  const abandonUpload = (key: string, sent: Buffer): Promise<void> =>
    new Promise((resolve) => {
      const req = request(url(key), {
        method: "PUT",
        headers: { "content-length": String(sent.length + 100_000) },
      });
      req.on("error", () => resolve());
      req.write(sent, () => {
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 50);
      });
    });

  it("answers every GetObject after concurrent writes with a body that hashes to its ETag", async () => {
    const sizes = [0, 1, 700, 16_384, 70_000, 300_000];
    // A torn object can also stall a reply (s3rver promises more bytes than the file holds): bound each
    // request so that shows up as a failed read rather than as the test's time-out.
    const BOUND_MS = 10_000;
    const torn: string[] = [];
    let reads = 0;
    await Promise.all(
      Array.from({ length: 12 }, async (_, worker) => {
        const key = `whole/k${worker % 4}.bin`;
        for (let cycle = 0; cycle < 20; cycle++) {
          const data = randomBytes(sizes[(worker + cycle) % sizes.length]!);
          // Every fifth write is cut off halfway, as by a client that times out.
          if (cycle % 5 === 4) await abandonUpload(key, data.subarray(0, data.length >> 1));
          else {
            const put = await fetch(url(key), {
              method: "PUT",
              body: data,
              signal: AbortSignal.timeout(BOUND_MS),
            });
            expect(put.status).toBe(200);
            expect(put.headers.get("etag")).toBe(etagOf(data));
          }
          reads++;
          // A body cut short of its Content-Length fails the fetch or stalls: torn reads as well.
          const got = await getBytes(key, AbortSignal.timeout(BOUND_MS)).catch((error: Error) => error);
          if (got instanceof Error) torn.push(`${key}: ${got.message}`);
          else if (got.status !== 200 || etagOf(got.bytes) !== got.etag)
            torn.push(`${key}: ${got.status}, ${got.bytes.length} bytes, ETag ${got.etag}`);
        }
      }),
    );
    expect(reads).toBe(240);
    expect(torn).toEqual([]);
  });

  it("keeps the previous object whole when a client abandons an upload", async () => {
    const first = randomBytes(200_000);
    expect((await fetch(url("whole/abandoned.bin"), { method: "PUT", body: first })).status).toBe(200);
    await abandonUpload("whole/abandoned.bin", randomBytes(120_000));
    const got = await getBytes("whole/abandoned.bin");
    expect(got.etag).toBe(etagOf(first));
    expect(got.bytes.equals(first)).toBe(true);
    // The write lock was released: a conditional write on the old ETag goes through.
    const next = await fetch(url("whole/abandoned.bin"), {
      method: "PUT",
      body: "next",
      headers: { "if-match": etagOf(first) },
    });
    expect(next.status).toBe(200);
    expect((await get("whole/abandoned.bin")).body).toBe("next");
  });

  it("reports the copied bytes' ETag when a copy replaces the metadata", async () => {
    await put("whole/copy-src.txt", "source bytes");
    await put("whole/copy-dst.txt", "older, longer destination bytes");
    const res = await fetch(url("whole/copy-dst.txt"), {
      method: "PUT",
      headers: {
        "x-amz-copy-source": `/${s3.bucket}/whole/copy-src.txt`,
        "x-amz-metadata-directive": "REPLACE",
        "content-type": "text/plain",
      },
    });
    expect(res.status).toBe(200);
    const expected = etagOf(Buffer.from("source bytes"));
    expect(await res.text()).toContain(expected.replace(/"/g, "&quot;"));
    const got = await getBytes("whole/copy-dst.txt");
    expect(got.bytes.toString()).toBe("source bytes");
    expect(got.etag).toBe(expected);
  });
});

describe("ListObjectsV2", () => {
  const listKeys = async (query: string) => {
    const res = await fetch(`${s3.endpoint}/${s3.bucket}?list-type=2&${query}`);
    const xml = await res.text();
    const keys = [...xml.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
    const prefixes = [...xml.matchAll(/<CommonPrefixes><Prefix>([^<]*)<\/Prefix>/g)].map((m) => m[1]!);
    const next = /<NextContinuationToken>([^<]*)</.exec(xml)?.[1];
    return {
      status: res.status,
      keys,
      prefixes,
      next,
      truncated: xml.includes("<IsTruncated>true</IsTruncated>"),
    };
  };

  it("sorts keys by UTF-8 bytes and paginates with continuation tokens", async () => {
    const names = ["a", "a b", "a.txt", "a/x", "a/y/z", "b&c", "é", "Z"];
    for (const name of names) await put(`order/${name}`, name);
    const expected = names
      .map((n) => `order/${n}`)
      .sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await listKeys(
        `prefix=order%2F&max-keys=3${token ? `&continuation-token=${encodeURIComponent(token)}` : ""}`,
      );
      expect(page.status).toBe(200);
      expect(page.keys.length).toBeLessThanOrEqual(3);
      seen.push(...page.keys);
      token = page.truncated ? page.next : undefined;
      pages++;
    } while (token);
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);
  });

  it("groups common prefixes with a delimiter and honours start-after", async () => {
    for (const name of ["d/one", "d/sub/two", "d/sub/three", "d/zed"]) await put(`grp/${name}`, name);
    const grouped = await listKeys("prefix=grp%2Fd%2F&delimiter=%2F");
    expect(grouped.keys).toEqual(["grp/d/one", "grp/d/zed"]);
    expect(grouped.prefixes).toEqual(["grp/d/sub/"]);
    const after = await listKeys("prefix=grp%2Fd%2F&start-after=grp%2Fd%2Fsub%2Fthree");
    expect(after.keys).toEqual(["grp/d/sub/two", "grp/d/zed"]);
    expect((await fetch(`${s3.endpoint}/no-such-bucket?list-type=2`)).status).toBe(404);
  });
});

describe("long names", () => {
  it("stores, lists, copies and deletes objects whose last segment is 255 bytes", async () => {
    const long = `long/${"n".repeat(254)}é`;
    expect(Buffer.byteLength(long.slice(5))).toBe(256);
    const name255 = `long/${"m".repeat(253)}é`;
    expect((await put(name255, "payload")).status).toBe(200);
    expect((await put(name255, "again", { "if-none-match": "*" })).status).toBe(412);
    expect((await get(name255)).body).toBe("payload");
    const listed = await fetch(
      `${s3.endpoint}/${s3.bucket}?list-type=2&prefix=${encodeURIComponent(name255)}`,
    );
    expect(await listed.text()).toContain(`<Key>${name255}</Key>`);
    const copied = await fetch(url(`long/copy/${"c".repeat(255)}`), {
      method: "PUT",
      headers: {
        "x-amz-copy-source": `/${s3.bucket}/${name255.split("/").map(encodeURIComponent).join("/")}`,
      },
    });
    expect(copied.status).toBe(200);
    expect((await get(`long/copy/${"c".repeat(255)}`)).body).toBe("payload");
    expect((await fetch(url(name255), { method: "DELETE" })).status).toBe(204);
    expect((await get(name255)).status).toBe(404);
    expect((await get(long)).status).toBe(404);
  });
});

describe("DeleteObjects", () => {
  it("deletes a batch of keys in one directory, whatever they look like", async () => {
    const keys = [
      "batch/0012",
      "batch/ spaced ",
      "batch/a&b<c>",
      "batch/sub/x",
      "batch/sub/y",
      "batch/missing",
    ];
    for (const key of keys.slice(0, -1)) await put(key, key);
    await put("batch-keep/0012", "keep");
    const body =
      "<Delete><Quiet>false</Quiet>" +
      keys
        .map(
          (k) =>
            `<Object><Key>${k.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")}</Key></Object>`,
        )
        .join("") +
      "</Delete>";
    const res = await fetch(`${s3.endpoint}/${s3.bucket}?delete`, { method: "POST", body });
    expect(res.status).toBe(200);
    expect((await res.text()).match(/<Deleted>/g)).toHaveLength(keys.length);
    for (const key of keys) expect((await get(key)).status).toBe(404);
    expect((await get("batch-keep/0012")).body).toBe("keep");
    expect(s3.requests.counts().DeleteObjects).toBe(1);
    const malformed = await fetch(`${s3.endpoint}/${s3.bucket}?delete`, {
      method: "POST",
      body: "<Delete></Delete>",
    });
    expect(malformed.status).toBe(400);
  });
});

describe("without enforced conditions", () => {
  it("passes If-None-Match and If-Match through to s3rver, which ignores them", async () => {
    const other = await startS3({ enforceConditions: false });
    try {
      const at = `${other.endpoint}/${other.bucket}/k`;
      const send = (body: string, headers: Record<string, string>) =>
        fetch(at, { method: "PUT", body, headers }).then((res) => res.status);
      expect(await send("one", { "if-none-match": "*" })).toBe(200);
      expect(await send("two", { "if-none-match": "*" })).toBe(200);
      expect(await send("three", { "if-match": '"0000"' })).toBe(200);
      expect(await (await fetch(at)).text()).toBe("three");
      expect(other.requests.counts()).toEqual({ PutObject: 3, GetObject: 1 });
    } finally {
      await other.stop();
    }
  });
});

describe("stop", () => {
  it("closes the endpoint and can be called twice", async () => {
    const other = await startS3();
    const endpoint = other.endpoint;
    expect((await fetch(`${endpoint}/${other.bucket}?list-type=2`)).status).toBe(200);
    await other.stop();
    await other.stop();
    await expect(fetch(`${endpoint}/${other.bucket}?list-type=2`)).rejects.toThrow();
  });
});
