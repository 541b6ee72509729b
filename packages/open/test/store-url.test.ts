import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeKey,
  describeStore,
  keyOptions,
  maskUrl,
  openStore,
  parseStoreUrl,
  StoreSetupError,
  StoreUrlError,
} from "../src/index.js";

const fails = (url: string): string => {
  try {
    parseStoreUrl(url);
  } catch (error) {
    expect(error).toBeInstanceOf(StoreUrlError);
    return (error as Error).message;
  }
  throw new Error(`${url} was accepted`);
};

/** The backend part of a URL without encryption or tenant. */
const plain = (url: string) => {
  const spec = parseStoreUrl(url);
  expect(spec.encrypted).toBe(false);
  expect(spec.tenant).toBeUndefined();
  return spec.backend;
};

describe("parseStoreUrl", () => {
  it("reads fs directories, relative or absolute", () => {
    expect(plain("fs:./memory-demo")).toEqual({ kind: "fs", root: "./memory-demo" });
    expect(plain("fs:/var/lib/memory")).toEqual({ kind: "fs", root: "/var/lib/memory" });
    expect(plain("fs://tmp/x")).toEqual({ kind: "fs", root: "tmp/x" });
  });

  it("reads redis URLs, the path being the key prefix", () => {
    expect(plain("redis://127.0.0.1:6380/demo:")).toEqual({
      kind: "redis",
      url: "redis://127.0.0.1:6380",
      prefix: "demo:",
    });
    expect(plain("rediss://cache.example.com:6380")).toEqual({
      kind: "redis",
      url: "rediss://cache.example.com:6380",
      prefix: "mem-demo/",
    });
    expect(plain("redis://user:p%40ss@localhost:6379/team%2Fa")).toEqual({
      kind: "redis",
      url: "redis://user:p%40ss@localhost:6379",
      prefix: "team/a",
    });
  });

  it("reads s3 URLs with their endpoint, region and addressing style", () => {
    expect(plain("s3://notes/demo?endpoint=http://127.0.0.1:9000")).toEqual({
      kind: "s3",
      bucket: "notes",
      prefix: "demo/",
      endpoint: "http://127.0.0.1:9000",
      region: undefined,
      forcePathStyle: true,
    });
    expect(plain("s3://my.bucket-1/a/b/?region=eu-west-1")).toEqual({
      kind: "s3",
      bucket: "my.bucket-1",
      prefix: "a/b/",
      endpoint: undefined,
      region: "eu-west-1",
      forcePathStyle: false,
    });
    expect(plain("s3://bkt?endpoint=https://r2.example.com&forcePathStyle=false")).toMatchObject({
      prefix: "mem-demo/",
      forcePathStyle: false,
    });
  });

  it("wraps any store in encryption once", () => {
    expect(parseStoreUrl("encrypted+fs:./secret")).toEqual({
      backend: { kind: "fs", root: "./secret" },
      encrypted: true,
      tenant: undefined,
    });
    expect(parseStoreUrl("encrypted+redis://h:1/p").backend).toEqual({
      kind: "redis",
      url: "redis://h:1",
      prefix: "p",
    });
    expect(fails("encrypted+encrypted+fs:x")).toMatch(/only once/);
  });

  it("takes ?tenant= on every scheme, leaving the other options to the backend", () => {
    expect(parseStoreUrl("fs:./m?tenant=alice")).toEqual({
      backend: { kind: "fs", root: "./m" },
      encrypted: false,
      tenant: "alice",
    });
    expect(parseStoreUrl("encrypted+redis://h:1/p?tenant=bob@example.com")).toEqual({
      backend: { kind: "redis", url: "redis://h:1", prefix: "p" },
      encrypted: true,
      tenant: "bob@example.com",
    });
    expect(parseStoreUrl("s3://bkt/p?region=eu-west-1&tenant=t1&endpoint=http://127.0.0.1:9000")).toEqual({
      backend: {
        kind: "s3",
        bucket: "bkt",
        prefix: "p/",
        endpoint: "http://127.0.0.1:9000",
        region: "eu-west-1",
        forcePathStyle: true,
      },
      encrypted: false,
      tenant: "t1",
    });
    expect(fails("fs:./m?tenant=../x")).toMatch(/tenant must be 1 to 128 characters/);
    expect(fails("fs:./m?tenant=")).toMatch(/tenant must be/);
    expect(fails("redis://h:1/p?tenant=a&tenant=b")).toMatch(/only once/);
    expect(fails("fs:./m?mode=700")).toMatch(/fs: takes no query other than \?tenant=/);
  });

  it("rejects unknown schemes and malformed URLs with a message that shows the accepted forms", () => {
    expect(fails("ftp://x/y")).toBe(
      'Unknown store URL scheme "ftp:". Use one of: fs:<directory>, redis://host:port/<prefix> (or rediss://), s3://<bucket>/<prefix>?endpoint=<url>&region=<region>, postgres://host:port/database (or postgresql://), sqlite:<file>, anthropic://<memory store id>/<prefix>, encrypted+<one of the above>, <any of them>?tenant=<id>, <any of them>?history.',
    );
    // Usage texts name no credentials: messages mask them, so a form showing "user:password" would
    // read differently in --help and in an error.
    expect(fails("ftp://x/y")).not.toMatch(/password|\*\*\*/);
    expect(fails("./memory")).toMatch(/has no scheme/);
    expect(fails("")).toMatch(/has no scheme/);
    expect(fails("fs:")).toMatch(/needs a directory/);
    expect(fails("redis://")).toMatch(/redis:\/\//);
    expect(fails("redis://h:1/p?db=2")).toMatch(/takes no query/);
    expect(fails("redis://h:99999/p")).toMatch(/malformed/);
    expect(fails("redis://h:1/%E0%A4%A")).toMatch(/percent-encoding/);
  });

  it("reads postgres URLs as connection strings, keeping the driver's own options", () => {
    expect(plain("postgres://app:pw@db.example.com:5432/app?sslmode=require")).toEqual({
      kind: "postgres",
      connectionString: "postgres://app:pw@db.example.com:5432/app?sslmode=require",
    });
    expect(parseStoreUrl("postgresql://127.0.0.1/app?tenant=alice")).toEqual({
      backend: { kind: "postgres", connectionString: "postgresql://127.0.0.1/app" },
      encrypted: false,
      tenant: "alice",
    });
    expect(fails("postgres:///app")).toMatch(/needs a host/);
    expect(fails("postgres://app:hunter2@/app")).not.toContain("hunter2");
  });

  it("rejects bad s3 URLs", () => {
    expect(fails("s3://Bad_Bucket/x")).toMatch(/not a valid bucket name/);
    expect(fails("s3://ab/x")).toMatch(/not a valid bucket name/);
    expect(fails("s3://bucket:9000/x")).toMatch(/\?endpoint=/);
    expect(fails("s3://bucket/x?endpoint=localhost:9000")).toMatch(/http:\/\/ or https:\/\//);
    expect(fails("s3://bucket/x?acl=public")).toBe(
      "Store URL: an s3 URL takes only the options endpoint, region, forcePathStyle, tenant and history.",
    );
    expect(fails("s3://bucket/x?forcePathStyle=yes")).toMatch(/"true" or "false"/);
    expect(fails("s3://AKIA:secret@bucket/x")).toMatch(/AWS_ACCESS_KEY_ID/);
  });

  it("never repeats credentials in its messages", () => {
    expect(fails("redis://user:hunter2@:1/x")).not.toContain("hunter2");
    expect(fails("s3://AKIA:hunter2@bucket/x")).not.toContain("hunter2");
  });

  it("refuses an '@' after the host, where a password with an unencoded '/', '?' or '#' puts it", () => {
    expect(fails("redis://user:S3cr3t/Pw/x@127.0.0.1:6379/notes")).toBe(
      'Store URL "redis://user:***@127.0.0.1:6379/notes" has an "@" after its host: percent-encode the password\'s reserved characters (/ as %2F, ? as %3F, # as %23, @ as %40).',
    );
    // Read as host "user", port 1234 and prefix "x@host" before: the password went to another host.
    expect(fails("redis://user:1234/x@host/notes")).toMatch(/^Store URL "redis:\/\/user:\*\*\*@host\/notes"/);
    expect(fails("postgres://app:a#b@db/app")).not.toContain("a#b");
    expect(plain("redis://h:1/notes%40work")).toMatchObject({ prefix: "notes@work" });
  });

  it("takes ?history out of the query, with or without a value", () => {
    expect(parseStoreUrl("redis://h:1/p?history")).toEqual({
      backend: { kind: "redis", url: "redis://h:1", prefix: "p" },
      encrypted: false,
      tenant: undefined,
      history: true,
    });
    expect(parseStoreUrl("fs:./m?tenant=bob&history=true")).toMatchObject({ tenant: "bob", history: true });
    expect(parseStoreUrl("fs:./m").history).toBeUndefined();
    expect(fails("fs:./m?history=no")).toMatch(/history takes no value/);
    expect(fails("fs:./m?history&history")).toMatch(/only once/);
    expect(describeStore(parseStoreUrl("fs:./m?history"))).toBe("directory ./m, with history");
  });
});

describe("credentials in messages, whatever the URL's shape", () => {
  // Each password is three tokens no message could hold by chance, joined by reserved characters.
  const token = fc.stringMatching(/^[A-Za-z0-9]{10}$/).map((t) => `Q${t}`);
  const reserved = fc
    .array(fc.constantFrom(..."/?#[]@!$&'()*+,;=:%"), { minLength: 0, maxLength: 3 })
    .map((cs) => cs.join(""));
  const password = fc.tuple(token, reserved, token, reserved, token).map((parts) => ({
    text: parts.join(""),
    tokens: [parts[0], parts[2], parts[4]],
  }));
  const schemes = ["redis", "rediss", "postgres", "postgresql", "s3"];
  const shapes = [
    (scheme: string, pw: string) => `${scheme}://app:${pw}@127.0.0.1:6379/notes`,
    (scheme: string, pw: string) => `${scheme}://:${pw}@db.example/notes?tenant=bob`,
    (scheme: string, pw: string) => `encrypted+${scheme}://app:${pw}@host/p`,
    // A token as the whole user part (up to a first ":", which makes what precedes it the user name).
    (scheme: string, pw: string) => `${scheme}://${pw.replaceAll(":", "")}@host/p`,
    (scheme: string, pw: string) => `${scheme}://host:1/p?password=${pw}`,
    (scheme: string, pw: string) => `${scheme}://host:1/p?tenant=bob&token=${pw}&region=x`,
    (scheme: string, pw: string) => `${scheme}://app:${pw}@/p`,
  ];

  /** Every text a URL can produce: the parse error, or the description and the masked URL. */
  const texts = async (url: string): Promise<string[]> => {
    try {
      const spec = parseStoreUrl(url);
      return [describeStore(spec), maskUrl(url)];
    } catch (error) {
      expect(error).toBeInstanceOf(StoreUrlError);
      // openStore throws the same, before any connection.
      const opened = await openStore(url, { env: {} }).then(
        () => "opened",
        (e: Error) => e.message,
      );
      return [(error as Error).message, opened, maskUrl(url)];
    }
  };

  it("never shows a password with reserved characters, for every scheme", async () => {
    await fc.assert(
      fc.asyncProperty(
        password,
        fc.constantFrom(...schemes),
        fc.integer({ min: 0, max: shapes.length - 1 }),
        async (pw, scheme, shape) => {
          const url = shapes[shape]!(scheme, pw.text);
          for (const text of await texts(url)) {
            for (const t of pw.tokens) expect(text, url).not.toContain(t);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("maskUrl", () => {
  it("masks the password, and a user part without one whole", () => {
    expect(maskUrl("redis://user:hunter2@host:1/p")).toBe("redis://user:***@host:1/p");
    expect(maskUrl("encrypted+rediss://:hunter2@host:1/p")).toBe("encrypted+rediss://:***@host:1/p");
    expect(maskUrl("redis://hunter2@host:1/p")).toBe("redis://***@host:1/p");
    expect(maskUrl("redis://u:hun@ter2@host:1/p?tenant=a")).toBe("redis://u:***@host:1/p?tenant=a");
    expect(maskUrl("fs:./m")).toBe("fs:./m");
    expect(maskUrl("s3://bkt/p?endpoint=http://u:pw@h:9000")).toBe("s3://bkt/p?endpoint=http://u:***@h:9000");
  });

  it("masks a password holding '/', '?' or '#', and query values that may be credentials", () => {
    expect(maskUrl("redis://user:S3cr3t/Pw/x@host:1/p")).toBe("redis://user:***@host:1/p");
    expect(maskUrl("redis://user:a?b#c@host:1/p")).toBe("redis://user:***@host:1/p");
    expect(maskUrl('Store URL "redis://h:1/x?password=hunter2" takes no query')).toBe(
      'Store URL "redis://h:1/x?password=***" takes no query',
    );
    expect(maskUrl("postgres://h/db?sslmode=require&password=a&b#c")).toBe(
      "postgres://h/db?sslmode=require&password=***",
    );
    expect(maskUrl("redis://h:1/p?tenant=bob&history")).toBe("redis://h:1/p?tenant=bob&history");
  });

  it("shows ?history where a sentence ends, and the usage text of a bad URL unmasked", () => {
    expect(maskUrl("use fs:./m?history.")).toBe("use fs:./m?history.");
    expect(maskUrl("redis://h:1/p?history, then")).toBe("redis://h:1/p?history, then");
    expect(maskUrl("redis://h:1/p?password=a.")).toBe("redis://h:1/p?password=***");
    let message = "";
    try {
      parseStoreUrl("bogus:x");
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/<any of them>\?history\.$/);
    expect(maskUrl(message)).toBe(message);
  });
});

describe("describeStore", () => {
  it("names the backend without credentials", () => {
    expect(describeStore(parseStoreUrl("encrypted+redis://u:hunter2@h:1/p"))).toBe(
      'Redis redis://u:***@h:1, prefix "p", encrypted',
    );
    expect(describeStore(parseStoreUrl("s3://bkt/p?endpoint=http://127.0.0.1:9000"))).toBe(
      'S3 bucket bkt, prefix "p/" at http://127.0.0.1:9000',
    );
    expect(describeStore(parseStoreUrl("fs:./m"))).toBe("directory ./m");
    expect(describeStore(parseStoreUrl("encrypted+fs:./m?tenant=bob"))).toBe(
      "directory ./m, encrypted, tenant bob",
    );
  });
});

describe("decodeKey", () => {
  it("accepts base64 of exactly 32 bytes", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(decodeKey(key)).toEqual(new Uint8Array(32).fill(7));
  });

  it("explains a missing or wrong key without showing it", () => {
    expect(() => decodeKey(undefined)).toThrow(StoreSetupError);
    expect(() => decodeKey("")).toThrow(/set MEMORY_KEY/);
    const short = Buffer.alloc(16, 1).toString("base64");
    expect(() => decodeKey(short)).toThrow("MEMORY_KEY must be base64 of exactly 32 bytes.");
    expect(() => decodeKey("not base64 at all!")).toThrow("MEMORY_KEY must be base64 of exactly 32 bytes.");
  });
});

describe("keyOptions", () => {
  const k = (fill: number) => Buffer.alloc(32, fill).toString("base64");

  it("reads one key as the default id, or a keyring whose first key is active", () => {
    expect(keyOptions(k(1))).toEqual({ key: new Uint8Array(32).fill(1) });
    expect(keyOptions(`new:${k(2)},default:${k(1)}`)).toEqual({
      keyring: {
        keys: { new: new Uint8Array(32).fill(2), default: new Uint8Array(32).fill(1) },
        active: "new",
      },
    });
  });

  it("refuses bad keyrings without showing a key", () => {
    expect(() => keyOptions(`.x:${k(1)}`)).toThrow(/valid id/);
    expect(() => keyOptions(`a:${k(1)},a:${k(2)}`)).toThrow('MEMORY_KEY names key id "a" twice.');
    const message = (() => {
      try {
        keyOptions("a:c2VjcmV0LXRvby1zaG9ydA==");
      } catch (error) {
        expect(error).toBeInstanceOf(StoreSetupError);
        return (error as Error).message;
      }
      return "";
    })();
    expect(message).toBe("MEMORY_KEY must be base64 of exactly 32 bytes.");
  });
});
