/// <reference lib="dom" />
/**
 * The console left running on a shared machine: its session cookie reaches no other server of the host,
 * sessions end, bad cookies are refused, live streams are bounded and leave no poller behind, searches
 * cannot hold the server, and invisible characters in names are shown.
 */
import { createServer, type Server } from "node:http";
import { ForwardingStore, InMemoryStore } from "@mem/core";
import { describe, expect, it } from "vitest";
import { startConsole } from "../src/serve/server.js";
import { GatedStore, useBrowser, writeText } from "./helpers/console-stores.js";

const browserOf = useBrowser();
const write = writeText;

/** Another server on this host: it records the `Cookie` header of every request it gets. */
const cookieCatcher = async (): Promise<{ url: string; cookies: string[]; server: Server }> => {
  const cookies: string[] = [];
  const server = createServer((req, res) => {
    cookies.push(req.headers.cookie ?? "");
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<p>another server</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/`, cookies, server };
};

const sessionCookie = (setCookie: string | null): string => {
  const found = /^(mem_console=[^;]*)/.exec(setCookie ?? "");
  expect(found).not.toBeNull();
  return found?.[1] as string;
};

describe("the login cookie", () => {
  it("reaches no other server on the host, and holds nothing the console accepts from elsewhere", async () => {
    const store = new InMemoryStore();
    await write(store, "/memories/private.md", "private\n");
    const token = "a-console-token-of-some-length";
    const console_ = await startConsole(store, { token });
    const other = await cookieCatcher();
    const page = await browserOf().newPage();
    try {
      await page.goto(console_.loginUrl);
      await page.getByRole("tree").getByRole("treeitem", { name: "private.md" }).waitFor();
      // The paths another server could know: its root, the console's API and asset names.
      for (const path of ["", "api/info", "assets/index.js", "?token=x", "favicon.svg"]) {
        await page.goto(`${other.url}${path}`);
      }
      await page.evaluate(async () => {
        await fetch("/api/info", { credentials: "include" });
      });
      expect(other.cookies.length).toBeGreaterThanOrEqual(5);
      for (const cookie of other.cookies) {
        expect(cookie).not.toContain(token);
        expect(cookie).not.toContain(encodeURIComponent(token));
        expect(cookie).not.toContain("mem_console");
        // Replayed to the console, whatever the other server got opens nothing.
        const replay = await fetch(`${console_.url}api/info`, { headers: { cookie } });
        expect(replay.status).toBe(401);
      }
      // The browser's own cookie is the session, not the token, and scoped to the console's path.
      const [cookie] = await page.context().cookies(console_.url);
      expect(cookie?.name).toBe("mem_console");
      expect(cookie?.value).not.toContain(token);
      expect(cookie?.path).toBe(new URL(console_.url).pathname);
      expect(cookie?.httpOnly).toBe(true);
    } finally {
      await page.close();
      await console_.close();
      other.server.close();
    }
  });

  it("ends a session after sessionMs; a malformed or unknown cookie answers 401", async () => {
    const token = "a-console-token-of-some-length";
    const server = await startConsole(new InMemoryStore(), { token, sessionMs: 300 });
    try {
      const login = await fetch(`${server.url}?token=${token}`, { redirect: "manual" });
      expect(login.status).toBe(303);
      expect(login.headers.get("location")).toBe(new URL(server.url).pathname);
      const setCookie = login.headers.get("set-cookie");
      expect(setCookie).toContain(`Path=${new URL(server.url).pathname}`);
      expect(setCookie).toContain("HttpOnly; SameSite=Strict");
      expect(setCookie).not.toContain(token);
      const cookie = sessionCookie(setCookie);
      expect((await fetch(`${server.url}api/info`, { headers: { cookie } })).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await fetch(`${server.url}api/info`, { headers: { cookie } })).status).toBe(401);
      // The token as a cookie (what the console used to set) is not a session.
      const asCookie = await fetch(`${server.url}api/info`, { headers: { cookie: `mem_console=${token}` } });
      expect(asCookie.status).toBe(401);
      for (const bad of ["mem_console=%E0%A4%A", "mem_console=%", "mem_console="]) {
        const refused = await fetch(`${server.url}api/info`, { headers: { cookie: bad } });
        expect(refused.status).toBe(401);
        expect(await refused.json()).toEqual({ error: "A valid token is required" });
      }
      // The root needs the token; the login link works there too, and leads to the console's path.
      expect((await fetch(new URL("/", server.url))).status).toBe(401);
      const atRoot = await fetch(new URL(`/?token=${token}`, server.url), { redirect: "manual" });
      expect(atRoot.headers.get("location")).toBe(new URL(server.url).pathname);
    } finally {
      await server.close();
    }
  });

  it("serves each start under a path of its own; without a token the root leads there", async () => {
    const store = new InMemoryStore();
    const one = await startConsole(store);
    const two = await startConsole(store);
    try {
      expect(new URL(one.url).pathname).toMatch(/^\/[\w-]{16}\/$/);
      expect(new URL(one.url).pathname).not.toBe(new URL(two.url).pathname);
      const root = await fetch(new URL("/", one.url), { redirect: "manual" });
      expect(root.status).toBe(303);
      expect(root.headers.get("location")).toBe(new URL(one.url).pathname);
      expect((await fetch(new URL("/api/info", one.url))).status).toBe(404);
      expect((await fetch(`${one.url}api/info`)).status).toBe(200);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe("roles", () => {
  it("a --token holder looks, a write-token holder restores; neither needs --allow-writes", async () => {
    const token = "read-only-token-for-support";
    const writeToken = "read-write-token-for-operators";
    const server = await startConsole(new InMemoryStore(), { token, writeToken });
    try {
      const info = async (bearer: string) =>
        (await (
          await fetch(`${server.url}api/info`, { headers: { authorization: `Bearer ${bearer}` } })
        ).json()) as { writes: boolean };
      expect((await info(token)).writes).toBe(false);
      expect((await info(writeToken)).writes).toBe(true);
      const restore = (bearer: string) =>
        fetch(`${server.url}api/restore`, {
          method: "POST",
          headers: { authorization: `Bearer ${bearer}`, origin: new URL(server.url).origin },
          body: "{}",
        });
      const refused = await restore(token);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: string }).error).toMatch(/^read-only console/);
      // The write token passes the role check and meets the CSRF check next.
      expect(((await (await restore(writeToken)).json()) as { error: string }).error).toBe(
        "Missing or wrong CSRF token",
      );
      // The session a login link starts keeps the token's role.
      const login = await fetch(`${server.url}?token=${token}`, { redirect: "manual" });
      const cookie = sessionCookie(login.headers.get("set-cookie"));
      const viaCookie = (await (await fetch(`${server.url}api/info`, { headers: { cookie } })).json()) as {
        writes: boolean;
      };
      expect(viaCookie.writes).toBe(false);
    } finally {
      await server.close();
    }
  });
});

/** An in-memory store that counts its listings; while `hold` is set, each listing waits for `release()`. */
class ListingStore extends ForwardingStore {
  lists = 0;
  hold = false;
  #waiting: (() => void)[] = [];
  override async list(...args: Parameters<ForwardingStore["list"]>) {
    this.lists++;
    if (this.hold) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    return super.list(...args);
  }
  release(): void {
    this.hold = false;
    for (const resolve of this.#waiting.splice(0)) resolve();
  }
  get waiting(): number {
    return this.#waiting.length;
  }
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("live streams", () => {
  it("leave no poller behind when clients close during the first listing", async () => {
    const store = new ListingStore(new InMemoryStore());
    store.hold = true;
    const server = await startConsole(store, { pollMs: 10 });
    try {
      const clients = Array.from({ length: 30 }, () => new AbortController());
      const requests = clients.map((c) =>
        fetch(`${server.url}api/events`, { signal: c.signal }).catch(() => undefined),
      );
      await expect.poll(() => server.liveCounts().streams).toBe(30);
      // One shared poller, one first listing for all thirty.
      expect(server.liveCounts().pollers).toBe(1);
      await expect.poll(() => store.waiting).toBe(1);
      for (const c of clients) c.abort();
      await Promise.all(requests);
      await expect.poll(() => server.liveCounts()).toEqual({ streams: 0, pollers: 0 });
      store.release();
      const after = store.lists;
      // Fifty poll intervals later, nothing has listed the store again.
      await settle(500);
      expect(store.lists).toBe(after);
    } finally {
      await server.close();
    }
  });

  it("shares one poller per tenant among its viewers, stopped when the last leaves", async () => {
    const store = new ListingStore(new InMemoryStore());
    const server = await startConsole(store, { pollMs: 60_000 });
    try {
      const clients = Array.from({ length: 10 }, () => new AbortController());
      const responses = await Promise.all(
        clients.map((c) => fetch(`${server.url}api/events`, { signal: c.signal })),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
      expect(server.liveCounts()).toEqual({ streams: 10, pollers: 1 });
      // Ten viewers, one listing.
      expect(store.lists).toBe(1);
      for (const c of clients.slice(0, 9)) c.abort();
      await expect.poll(() => server.liveCounts()).toEqual({ streams: 1, pollers: 1 });
      clients[9]?.abort();
      await expect.poll(() => server.liveCounts()).toEqual({ streams: 0, pollers: 0 });
    } finally {
      await server.close();
    }
  });

  it("refuses streams beyond maxStreams with a 503 that says why", async () => {
    const server = await startConsole(new InMemoryStore(), { pollMs: 60_000, maxStreams: 3 });
    try {
      const clients = Array.from({ length: 3 }, () => new AbortController());
      for (const c of clients) {
        expect((await fetch(`${server.url}api/events`, { signal: c.signal })).status).toBe(200);
      }
      const refused = await fetch(`${server.url}api/events`);
      expect(refused.status).toBe(503);
      expect(await refused.json()).toEqual({
        error: "too many live streams: this console serves at most 3 at once",
      });
      clients[0]?.abort();
      await expect.poll(() => server.liveCounts().streams).toBe(2);
      const again = new AbortController();
      expect((await fetch(`${server.url}api/events`, { signal: again.signal })).status).toBe(200);
      again.abort();
      for (const c of clients) c.abort();
    } finally {
      await server.close();
    }
    await expect(startConsole(new InMemoryStore(), { maxStreams: -1 })).rejects.toThrow(/maxStreams/);
  });
});

describe("search", () => {
  it("runs a pathological expression in linear time while the server answers", async () => {
    const store = new InMemoryStore();
    const line = "an ordinary line of sixty characters, give or take a few...";
    for (let i = 0; i < 50; i++) await write(store, `/memories/f${i}.md`, `${line}\n`.repeat(20));
    const server = await startConsole(store);
    try {
      const [found, info] = await Promise.all([
        fetch(`${server.url}api/search?regex=1&q=${encodeURIComponent("(.*)*X")}`),
        fetch(`${server.url}api/info`),
      ]);
      expect(info.status).toBe(200);
      expect(await found.json()).toEqual({ hits: [], searched: 50, total: 50 });
      const bad = await fetch(`${server.url}api/search?regex=1&q=${encodeURIComponent("(?=x)")}`);
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: string }).error).toMatch(/^not a regular expression/);
    } finally {
      await server.close();
    }
  });

  it("stops a search in flight when the server closes", async () => {
    const store = new GatedStore(new InMemoryStore());
    for (let i = 0; i < 20; i++) await write(store.inner, `/memories/f${i}.md`, "x\n");
    const server = await startConsole(store);
    const pending = fetch(`${server.url}api/search?q=x`).catch(() => undefined);
    await expect.poll(() => store.reads).toBe(1);
    await server.close();
    store.open();
    await pending;
    await settle(100);
    expect(store.reads).toBe(1);
  });
});

describe("invisible characters", () => {
  it("shows bidi controls and other invisible characters as escapes wherever a name is shown", async () => {
    const store = new InMemoryStore();
    const spoof = "invoice\u202Egpj.exe";
    await write(store, `/memories/${spoof}`, "not a picture\n");
    await write(store, "/memories/zero\u200Bwidth/a.md", "inside\n");
    const server = await startConsole(store, { pollMs: 50 });
    const page = await browserOf().newPage();
    try {
      await page.goto(server.url);
      const tree = page.getByRole("tree");
      const item = tree.getByRole("treeitem", { name: "invoice\\u202Egpj.exe" });
      await item.waitFor();
      expect(await item.locator(".name").textContent()).toBe("invoice\\u202Egpj.exe");
      expect(await item.locator(".name .invisible").textContent()).toBe("\\u202E");
      const folder = tree.getByRole("treeitem", { name: "zero\\u200Bwidth" });
      expect(await folder.locator(".name").textContent()).toBe("zero\\u200Bwidth");
      // No displayed text holds the raw character.
      const shown = await page.evaluate(() => document.body.innerText);
      expect(shown).not.toMatch(/[\u202E\u200B]/);

      await item.click();
      const heading = page.getByRole("region", { name: "File" }).getByRole("heading");
      await expect.poll(() => heading.textContent()).toBe("/memories/invoice\\u202Egpj.exe");

      await page.getByRole("searchbox").fill("picture");
      await page.getByRole("searchbox").press("Enter");
      const hit = page.getByRole("list", { name: "Search results" }).getByRole("button").first();
      await expect.poll(() => hit.locator(".where").textContent()).toBe("/memories/invoice\\u202Egpj.exe:1");

      await page.getByText("connected", { exact: true }).waitFor();
      await write(store, "/memories/new\u2067name.md", "x\n");
      const feed = page.getByRole("list", { name: "Live changes" });
      await feed.getByText("/memories/new\\u2067name.md").waitFor();
      expect(await page.evaluate(() => document.body.innerText)).not.toMatch(/[\u202E\u200B\u2067]/);
    } finally {
      await page.close();
      await server.close();
    }
  });
});
