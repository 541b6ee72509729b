/// <reference lib="dom" />
/** `mem serve`'s console end to end: a real chromium against the server over an fs store and a Redis store. */

import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand, ForwardingStore, InMemoryStore, type MemoryStore, usageOf } from "@mem/core";
import type { HistoryStore } from "@mem/history";
import { type RedisServer, startRedis } from "@mem/testkit";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../src/index.js";
import { type ConsoleHandle, startConsole } from "../src/serve/server.js";
import { ensureConsoleBuilt, launch } from "./helpers/browser.js";
import { GatedStore } from "./helpers/console-stores.js";

// A 1×1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
const XSS = `<script>window.__xss = 1</script>\n<img src=x onerror="window.__xss = 2">\n`;
const LONG = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of a long file`).join("\n");

let browser: Browser;
let redis: RedisServer;
const dirs: string[] = [];

beforeAll(async () => {
  ensureConsoleBuilt();
  [browser, redis] = await Promise.all([launch(), startRedis()]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), redis?.stop()]);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const write = async (store: MemoryStore, path: string, data: string | Uint8Array) => {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  await store.write(path, bytes, { ifAbsent: true });
};

/** A store with notes, an image, a long file, a hostile file and a hidden one. */
const fill = async (store: MemoryStore) => {
  await write(store, "/memories/projects/alpha/notes.md", "alpha notes\nthe needle is here\n");
  await write(store, "/memories/projects/beta.md", "beta\n");
  await write(store, "/memories/pixel.png", PNG);
  await write(store, "/memories/long.txt", LONG);
  await write(store, "/memories/xss.html", XSS);
  await write(store, "/memories/.secret-notes", "hidden\n");
};

const urls: Record<string, () => string> = {
  fs: () => {
    const dir = mkdtempSync(join(tmpdir(), "mem-console-"));
    dirs.push(dir);
    return `fs:${dir}?history`;
  },
  redis: () => `${redis.url}/console${Math.floor(Math.random() * 1e9)}?history`,
};

const open = async (page: Page, url: string, first = "projects") => {
  await page.goto(url);
  await page.getByRole("tree").getByRole("treeitem", { name: first, exact: true }).waitFor();
};

/** Records every Content-Security-Policy violation the page reports (a console that needs none has none). */
const watchCsp = (page: Page) =>
  page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (e) =>
      seen.push(`${e.effectiveDirective} ${e.blockedURI}`),
    );
  });
const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);

const treeItem = (page: Page, name: string) =>
  page.getByRole("tree").getByRole("treeitem", { name, exact: true });

describe.each(Object.keys(urls))("the console over a %s store", (kind) => {
  let url: string;
  let store: MemoryStore;
  let agent: MemoryStore;
  let readOnly: ConsoleHandle;
  let writable: ConsoleHandle;

  beforeAll(async () => {
    url = (urls[kind] as () => string)();
    store = await openStore(url);
    // Another process's store: the agent writes through its own connection.
    agent = await openStore(url);
    await fill(agent);
    readOnly = await startConsole(store, { pollMs: 100 });
    writable = await startConsole(store, { pollMs: 100, allowWrites: true });
  });
  afterAll(async () => {
    await Promise.all([readOnly?.close(), writable?.close()]);
    await Promise.all([store?.close?.(), agent?.close?.()]);
  });

  it("shows a lazy tree, a file as view renders it, an image, and pages a long file", async () => {
    const page = await browser.newPage();
    await watchCsp(page);
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await open(page, readOnly.url);
    // Folders load their children only when opened.
    await expect(treeItem(page, "alpha").count()).resolves.toBe(0);
    // Sizes as view shows them to the model.
    const root = await executeCommand(store, { command: "view", path: "/memories" });
    const projects = root.content.split("\n").find((line) => line.endsWith("\t/memories/projects/"));
    expect(projects).toBeDefined();
    expect(await treeItem(page, "projects").locator(".size").first().textContent()).toBe(
      projects?.split("\t")[0],
    );
    await treeItem(page, "projects").click();
    await treeItem(page, "alpha").click();
    await treeItem(page, "notes.md").click();
    const file = page.getByRole("region", { name: "File" });
    const expected = await executeCommand(store, {
      command: "view",
      path: "/memories/projects/alpha/notes.md",
    });
    await expect.poll(() => file.getByLabel("View result").textContent()).toBe(expected.content);

    await treeItem(page, "pixel.png").click();
    const image = file.getByRole("img", { name: "/memories/pixel.png" });
    await image.waitFor();
    expect(await image.getAttribute("src")).toBe(`data:image/png;base64,${PNG.toString("base64")}`);

    await treeItem(page, "long.txt").click();
    const first = await executeCommand(store, { command: "view", path: "/memories/long.txt" });
    await expect.poll(() => file.getByLabel("View result").textContent()).toBe(first.content);
    const next = /truncated after line (\d+) of (\d+)/.exec(first.content);
    expect(next).not.toBeNull();
    await file.getByRole("button", { name: /Next page/ }).click();
    const second = await executeCommand(store, {
      command: "view",
      path: "/memories/long.txt",
      view_range: [Number(next?.[1]) + 1, Number(next?.[2])],
    });
    await expect.poll(() => file.getByLabel("View result").textContent()).toBe(second.content);

    // Hidden names only behind the toggle, the store's bookkeeping never.
    await expect(treeItem(page, ".secret-notes").count()).resolves.toBe(0);
    await page.getByLabel("hidden names").check();
    await treeItem(page, ".secret-notes").waitFor();
    await expect(page.getByRole("treeitem", { name: ".mem-history" }).count()).resolves.toBe(0);

    // Nothing but the console's own server was asked for anything.
    const origin = new URL(readOnly.url).origin;
    expect(requests.filter((r) => !r.startsWith(origin) && !r.startsWith("data:"))).toEqual([]);
    // The page runs within its policy: no inline script or style, nothing from elsewhere.
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
  });

  it("navigates the tree with the keyboard", async () => {
    const page = await browser.newPage();
    await open(page, readOnly.url);
    await treeItem(page, "long.txt").focus();
    await page.keyboard.press("End");
    await page.keyboard.press("Home");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
      .toBe("long.txt");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("aria-label")))
      .toBe("projects");
    await page.keyboard.press("ArrowRight");
    await treeItem(page, "alpha").waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowRight");
    await treeItem(page, "notes.md").waitFor();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.getByRole("region", { name: "File" }).getByRole("heading").textContent())
      .toBe("/memories/projects/alpha/notes.md");
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
    // Left goes to the parent folder, then closes it; Up moves back.
    await page.keyboard.press("ArrowLeft");
    await expect.poll(focused).toBe("alpha");
    await page.keyboard.press("ArrowLeft");
    await expect.poll(() => treeItem(page, "notes.md").count()).toBe(0);
    expect(await treeItem(page, "alpha").getAttribute("aria-expanded")).toBe("false");
    await page.keyboard.press("ArrowUp");
    await expect.poll(focused).toBe("projects");
    await page.close();
  });

  it("renders a hostile file as text", async () => {
    const page = await browser.newPage();
    await watchCsp(page);
    await open(page, readOnly.url);
    await treeItem(page, "xss.html").click();
    const file = page.getByRole("region", { name: "File" });
    await expect
      .poll(() => file.getByLabel("View result").textContent())
      .toContain("<script>window.__xss = 1</script>");
    await file.getByRole("tab", { name: "Raw" }).click();
    await expect.poll(() => file.getByLabel("Raw text").textContent()).toBe(XSS);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await file.locator("script, img").count()).toBe(0);
    // Inert, not merely blocked: nothing even tried to run (the policy would have reported it).
    expect(await cspViolations(page)).toEqual([]);
    await page.close();
  });

  it("follows the system's light or dark theme", async () => {
    const page = await browser.newPage();
    const colours = async (scheme: "light" | "dark") => {
      await page.emulateMedia({ colorScheme: scheme });
      return page.evaluate(() => {
        const style = getComputedStyle(document.body);
        return [style.backgroundColor, style.color];
      });
    };
    await open(page, readOnly.url);
    expect(await colours("light")).toEqual(["rgb(255, 255, 255)", "rgb(27, 31, 36)"]);
    expect(await colours("dark")).toEqual(["rgb(21, 24, 28)", "rgb(227, 230, 234)"]);
    await page.close();
  });

  it("searches with a substring and a regular expression, with line numbers", async () => {
    const page = await browser.newPage();
    await open(page, readOnly.url);
    await page.getByRole("searchbox").fill("needle");
    await page.getByRole("searchbox").press("Enter");
    const results = page.getByRole("list", { name: "Search results" });
    await expect
      .poll(() => results.getByRole("button").first().textContent())
      .toBe("/memories/projects/alpha/notes.md:2the needle is here");
    await page.getByRole("searchbox").fill("^line 29\\d\\d of");
    await page.getByLabel("regex").check();
    await page.getByRole("searchbox").press("Enter");
    await expect.poll(() => results.getByRole("button", { name: /long\.txt/ }).count()).toBe(100);
    expect(await results.getByRole("button").first().textContent()).toBe(
      "/memories/long.txt:2900line 2900 of a long file",
    );
    await page.close();
  });

  it("shows a change an agent makes while the page is open", async () => {
    const page = await browser.newPage();
    await open(page, readOnly.url);
    const feed = page.getByRole("list", { name: "Live changes" });
    await page.getByText("connected", { exact: true }).waitFor();
    const created = await executeCommand(
      agent,
      { command: "create", path: "/memories/live-note.md", file_text: "made while watching\n" },
      { actor: "agent-7" },
    );
    expect(created.isError).toBe(false);
    await feed.getByText("/memories/live-note.md").waitFor();
    // The tree follows.
    await treeItem(page, "live-note.md").waitFor();
    await page.close();
  });

  it("diffs two versions, refuses restore when read-only and restores with --allow-writes", async () => {
    const path = "/memories/projects/beta.md";
    for (const [old_str, new_str] of [
      ["beta", "beta two"],
      ["beta two", "beta three"],
    ]) {
      const result = await executeCommand(
        agent,
        { command: "str_replace", path, old_str, new_str },
        { actor: "agent-7" },
      );
      expect(result.isError).toBe(false);
    }
    const versions = await (store as HistoryStore).versions(path);
    expect(versions.length).toBeGreaterThanOrEqual(2);

    const page = await browser.newPage();
    await open(page, readOnly.url);
    await treeItem(page, "projects").click();
    await treeItem(page, "beta.md").click();
    const file = page.getByRole("region", { name: "File" });
    await file.getByRole("tab", { name: "History" }).click();
    const history = file.getByRole("list", { name: "History" });
    await expect.poll(() => history.getByRole("listitem").count()).toBe(versions.length);
    expect(await history.getByRole("listitem").first().textContent()).toContain("by agent-7");
    expect(await history.getByRole("listitem").first().textContent()).toContain("str_replace");
    // Newest kept version ("beta two") against the current file ("beta three").
    await expect
      .poll(() => file.getByLabel("Diff", { exact: true }).textContent())
      .toBe("- beta two\n+ beta three\n");
    await file.getByLabel("Diff from").selectOption(versions[1]?.id as string);
    await file.getByLabel("Diff to").selectOption(versions[0]?.id as string);
    await expect
      .poll(() => file.getByLabel("Diff", { exact: true }).textContent())
      .toBe("- beta\n+ beta two\n");
    // Read-only: no restore button, and the API refuses.
    expect(await file.getByRole("button", { name: "Restore…" }).count()).toBe(0);
    const refused = await page.evaluate(
      async ([p, id]) =>
        (await fetch("api/restore", { method: "POST", body: JSON.stringify({ path: p, id }) })).status,
      [path, versions[1]?.id],
    );
    expect(refused).toBe(403);

    await page.goto(writable.loginUrl);
    await treeItem(page, "projects").click();
    await treeItem(page, "beta.md").click();
    await file.getByRole("tab", { name: "History" }).click();
    await history.getByRole("listitem").first().waitFor();
    // Without the CSRF token a write is refused even with the cookie.
    const noCsrf = await page.evaluate(
      async ([p, id]) =>
        (await fetch("api/restore", { method: "POST", body: JSON.stringify({ path: p, id }) })).status,
      [path, versions[1]?.id],
    );
    expect(noCsrf).toBe(403);
    await history.getByRole("listitem").nth(1).getByRole("button", { name: "Restore…" }).click();
    await file.getByRole("button", { name: "Yes, restore" }).click();
    await file.getByRole("status").waitFor();
    const now = await store.read(path);
    expect(new TextDecoder().decode(now?.data)).toBe("beta\n");
    // The restore is itself a version.
    expect((await (store as HistoryStore).versions(path)).length).toBe(versions.length + 1);
    await page.close();
  });

  it("exports the files as the mem export archive", async () => {
    const response = await fetch(`${readOnly.url}api/export`);
    expect(response.headers.get("content-type")).toBe("application/x-tar");
    const body = Buffer.from(await response.arrayBuffer());
    // The format mem import reads: the manifest first, then the files.
    expect(body.subarray(0, 16).toString()).toBe("mem-archive.json");
    expect(body.includes(Buffer.from("memories/projects/alpha/notes.md"))).toBe(true);
    expect(body.includes(Buffer.from("the needle is here"))).toBe(true);
    expect(body.includes(Buffer.from(".mem-history"))).toBe(false);
  });
});

/**
 * A store that lists its tenants, as the optional `tenants()` of the store contract describes: ids in
 * byte order after `after`, at most `limit` a page, files and bytes from each scope's own `usage()`, and
 * the access time it keeps (ms since the epoch).
 */
class TenantStore extends ForwardingStore {
  readonly lastAccess = new Map<string, number>();
  readonly pages: { after?: string; limit?: number }[] = [];
  constructor(private readonly root: InMemoryStore) {
    super(root);
  }
  scope(tenant: string): MemoryStore {
    return this.root.scope(tenant);
  }
  async put(tenant: string, path: string, text: string, at: Date): Promise<void> {
    await write(this.root.scope(tenant), path, text);
    this.lastAccess.set(tenant, at.getTime());
  }
  async tenants(options: { after?: string; limit?: number } = {}) {
    this.pages.push(options);
    const limit = options.limit ?? 100;
    const ids = [...this.lastAccess.keys()]
      .sort()
      .filter((id) => options.after === undefined || id > options.after);
    const shown = ids.slice(0, limit);
    const tenants = await Promise.all(
      shown.map(async (id) => {
        const { files, bytes } = await usageOf(this.root.scope(id));
        const at = this.lastAccess.get(id);
        return at === undefined ? { id, files, bytes } : { id, files, bytes, lastAccess: at };
      }),
    );
    return ids.length > limit ? { tenants, next: shown.at(-1) as string } : { tenants };
  }
}

/** An in-memory store that counts the listings asked of it and the walks (`files()`) of all its files. */
class CountingStore extends ForwardingStore {
  readonly lists: [string, number][] = [];
  walks = 0;
  override list(...args: Parameters<ForwardingStore["list"]>) {
    this.lists.push([args[0], args[1]]);
    return super.list(...args);
  }
  async files() {
    this.walks++;
    return (await (this.inner as InMemoryStore).files?.()) ?? [];
  }
}

/** Tenants by `scope()` only, with no list of them. */
class ScopedStore extends ForwardingStore {
  constructor(private readonly root: InMemoryStore) {
    super(root);
  }
  scope(tenant: string): MemoryStore {
    return this.root.scope(tenant);
  }
}

const tenantRows = (page: Page) => page.getByRole("table", { name: "Tenants" }).getByRole("row");

describe("tenants and access", () => {
  it("lists a store's tenants page by page, with quota use, and shows the chosen tenant's memory", async () => {
    const store = new TenantStore(new InMemoryStore());
    await store.put("alice", "/memories/alice.md", "alice\n", new Date(Date.UTC(2026, 0, 2, 3, 4, 5)));
    await store.put("bob", "/memories/bob.md", "bob\n", new Date(Date.UTC(2026, 1, 3)));
    // Enough tenants for a second page (the console asks for 100 at a time).
    for (let i = 0; i < 110; i++) {
      await store.put(`t${String(i).padStart(3, "0")}`, "/memories/n.md", "n\n", new Date(0));
    }
    const server = await startConsole(store, { quota: { maxFiles: 10, maxTotalBytes: 20 } });
    const page = await browser.newPage();
    try {
      await page.goto(server.url);
      await expect.poll(() => tenantRows(page).count()).toBe(101);
      const alice = tenantRows(page).nth(1);
      expect(await alice.getByRole("cell").nth(0).textContent()).toBe("alice");
      expect(await alice.getByRole("cell").nth(1).textContent()).toBe("1");
      expect(await alice.getByRole("cell").nth(2).textContent()).toBe("6 B");
      expect(await alice.locator("time").getAttribute("datetime")).toBe("2026-01-02T03:04:05.000Z");
      // Quota use: the larger share, 6 of 20 bytes for alice, 4 of 20 for bob.
      expect(await alice.getByRole("cell").last().textContent()).toBe("30%");
      expect(await tenantRows(page).nth(2).getByRole("cell").last().textContent()).toBe("20%");
      expect(await tenantRows(page).last().getByRole("cell").first().textContent()).toBe("t097");

      await page.getByRole("button", { name: "More tenants" }).click();
      await expect.poll(() => tenantRows(page).count()).toBe(113);
      expect(await tenantRows(page).last().getByRole("cell").first().textContent()).toBe("t109");
      expect(await page.getByRole("button", { name: "More tenants" }).count()).toBe(0);
      // Exactly the method of the store contract, one call a page, each after the last.
      expect(store.pages).toEqual([{ limit: 100 }, { limit: 100, after: "t097" }]);

      await page.getByRole("table", { name: "Tenants" }).getByRole("button", { name: "bob" }).click();
      await treeItem(page, "bob.md").waitFor();
      expect(await treeItem(page, "alice.md").count()).toBe(0);
      expect(new URL(page.url()).searchParams.get("tenant")).toBe("bob");
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("shows the ?tenant= tenant with its usage when the store lists no tenants", async () => {
    const root = new InMemoryStore();
    await write(root.scope("carol"), "/memories/carol.md", "carol's notes\n");
    await write(root.scope("carol"), "/memories/more/two.md", "two\n");
    await write(root.scope("dave"), "/memories/dave.md", "dave\n");
    const server = await startConsole(new ScopedStore(root), { quota: { maxFiles: 4 } });
    const page = await browser.newPage();
    try {
      await page.goto(`${server.url}?tenant=carol`);
      await treeItem(page, "carol.md").waitFor();
      await expect.poll(() => tenantRows(page).count()).toBe(2);
      const cells = tenantRows(page).nth(1).getByRole("cell");
      expect(await cells.allTextContents()).toEqual(["carol", "2", "18 B", "0 B", "—", "50%"]);
      expect(await treeItem(page, "dave.md").count()).toBe(0);
    } finally {
      await page.close();
      await server.close();
    }
    // A store opened for one tenant (`?tenant=` in its URL) shows that one.
    const fixed = await startConsole(root.scope("dave"), { tenant: "dave" });
    const again = await browser.newPage();
    try {
      await again.goto(fixed.url);
      await treeItem(again, "dave.md").waitFor();
      await expect.poll(() => tenantRows(again).count()).toBe(2);
      expect(await tenantRows(again).nth(1).getByRole("cell").allTextContents()).toEqual([
        "dave",
        "1",
        "5 B",
        "0 B",
        "—",
      ]);
    } finally {
      await again.close();
      await fixed.close();
    }
  });

  it("lists one folder at a time, 200 entries and more on request, never walking the store", async () => {
    const store = new CountingStore(new InMemoryStore());
    for (let i = 0; i < 250; i++)
      await write(store.inner, `/memories/big/n${String(i).padStart(3, "0")}.md`, "n\n");
    await write(store.inner, "/memories/deep/er/still/file.md", "deep\n");
    const server = await startConsole(store);
    const page = await browser.newPage();
    try {
      await open(page, server.url, "big");
      await treeItem(page, "big").click();
      await treeItem(page, "n199.md").waitFor();
      expect(await treeItem(page, "n200.md").count()).toBe(0);
      await page.getByRole("button", { name: "50 more…" }).click();
      await treeItem(page, "n249.md").waitFor();
      // The tree asks for one folder at a time; only the live feed looks two levels down from the root.
      const tree = store.lists.filter(([dir, depth]) => !(dir === "/memories" && depth === 2));
      expect(new Set(tree.map(([dir, depth]) => `${dir} ${depth}`))).toEqual(
        new Set(["/memories 1", "/memories/big 1"]),
      );
      expect(store.walks).toBe(0);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("stops a search with Stop, and the server stops reading", async () => {
    const files = 20;
    const store = new GatedStore(new InMemoryStore());
    for (let i = 0; i < files; i++) await write(store.inner, `/memories/f${i}.md`, "x\n");
    const server = await startConsole(store);
    const page = await browser.newPage();
    try {
      await open(page, server.url, "f0.md");
      const failed: string[] = [];
      const base = new URL(server.url).pathname;
      page.on("requestfailed", (r) =>
        failed.push(`/${new URL(r.url()).pathname.slice(base.length)} ${r.failure()?.errorText}`),
      );
      await page.getByRole("searchbox").fill("x");
      await page.getByRole("searchbox").press("Enter");
      await expect.poll(() => store.reads).toBe(1);
      await page.getByRole("button", { name: "Stop" }).click();
      await expect.poll(() => failed).toEqual(["/api/search net::ERR_ABORTED"]);
      await page.getByRole("button", { name: "Search", exact: true }).waitFor();
      store.open();
      // A whole search reads every file; the stopped one read one or two before it saw the request go.
      const whole = (await (await fetch(`${server.url}api/search?q=x`)).json()) as { hits: unknown[] };
      expect(whole.hits).toHaveLength(files);
      expect(store.reads - files).toBeLessThan(files / 2);
      expect(await page.getByRole("list", { name: "Search results" }).count()).toBe(0);
      expect(await page.getByRole("alert").count()).toBe(0);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("off loopback, a browser without the token or with a wrong one sees nothing", async () => {
    const store = new InMemoryStore();
    await write(store, "/memories/private.md", "private\n");
    const token = "an-off-loopback-console-token";
    const { bind, browse } = offLoopback();
    const server = await startConsole(store, { host: bind, token });
    const base = `http://${browse}:${new URL(server.url).port}/`;
    const page = await browser.newPage();
    try {
      const missing = await page.goto(base);
      expect(missing?.status()).toBe(401);
      expect(await missing?.text()).toBe('{"error":"A valid token is required"}');
      const api = await page.goto(`${base}api/view?path=/memories/private.md`);
      expect(api?.status()).toBe(401);
      const wrong = await page.goto(`${base}?token=not-the-console-token`);
      expect(wrong?.status()).toBe(401);
      expect(await wrong?.text()).toBe('{"error":"A valid token is required"}');
      const right = await page.goto(`${base}?token=${token}`);
      expect(right?.status()).toBe(200);
      expect(new URL(page.url()).search).toBe("");
      await treeItem(page, "private.md").waitFor();
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("needs a token off loopback, refuses wrong tokens, rebound hosts and cross-site requests", async () => {
    const store = new InMemoryStore();
    await expect(startConsole(store, { host: "0.0.0.0" })).rejects.toThrow(/token is required/);
    const token = "a-long-enough-console-token";
    const server = await startConsole(store, { token });
    try {
      expect((await fetch(`${server.url}api/info`)).status).toBe(401);
      expect(
        (
          await fetch(`${server.url}api/info`, {
            headers: { Authorization: "Bearer wrong-token-wrong-token" },
          })
        ).status,
      ).toBe(401);
      expect(
        (await fetch(`${server.url}?token=wrong-token-wrong-token`, { redirect: "manual" })).status,
      ).toBe(401);
      expect(
        (await fetch(`${server.url}api/info`, { headers: { Authorization: `Bearer ${token}` } })).status,
      ).toBe(200);
      const login = await fetch(`${server.url}?token=${token}`, { redirect: "manual" });
      expect(login.status).toBe(303);
      expect(login.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Strict/);
      const rebound = await rawGet(server.url, "api/info", {
        Host: "evil.example:80",
        Authorization: `Bearer ${token}`,
      });
      expect(rebound).toBe(403);
      const crossSite = await rawGet(server.url, "api/info", {
        Origin: "http://evil.example",
        Authorization: `Bearer ${token}`,
      });
      expect(crossSite).toBe(403);
      const page = await fetch(server.url, { headers: { Authorization: `Bearer ${token}` } });
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(await page.text()).not.toMatch(/<script(?![^>]*\bsrc=)/);
    } finally {
      await server.close();
    }
  });
});

/** An address of this machine that is not loopback, or every address when it has none. */
const offLoopback = (): { bind: string; browse: string } => {
  for (const list of Object.values(networkInterfaces())) {
    const found = list?.find((a) => a.family === "IPv4" && !a.internal);
    if (found) return { bind: found.address, browse: found.address };
  }
  return { bind: "0.0.0.0", browse: "127.0.0.1" };
};

const rawGet = (base: string, path: string, headers: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname, headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
