/// <reference lib="dom" />
/**
 * What an operator sees in the console: the store and mem's version in the header, marked search hits
 * with progress, sortable tenants, and the audit view over a store's change log with roll back behind
 * the write token.
 */
import { readFileSync } from "node:fs";
import { executeCommand, ForwardingStore, InMemoryStore, type MemoryStore, usageOf } from "@mem/core";
import { HistoryStore } from "@mem/history";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import type { ChangeQuery, ChangeRow, RollbackRequest } from "../src/serve/audit.js";
import { startConsole } from "../src/serve/server.js";
import { useBrowser, writeText } from "./helpers/console-stores.js";

const browserOf = useBrowser();
const write = writeText;

const treeItem = (page: Page, name: string) =>
  page.getByRole("tree").getByRole("treeitem", { name, exact: true });

const VERSION = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe("the header", () => {
  it("names the store (as given, masked), its kind and mem's version", async () => {
    const store = new InMemoryStore();
    await write(store, "/memories/a.md", "a\n");
    const server = await startConsole(store, {
      store: {
        name: "redis://app:***@cache:6379/notes",
        backend: 'Redis redis://app:***@cache:6379, prefix "notes"',
      },
    });
    const page = await browserOf().newPage();
    try {
      await page.goto(server.url);
      await treeItem(page, "a.md").waitFor();
      const header = page.locator("header.top");
      expect(await header.locator(".store-name").textContent()).toBe("redis://app:***@cache:6379/notes");
      expect(await header.locator(".backend").textContent()).toBe(
        'Redis redis://app:***@cache:6379, prefix "notes"',
      );
      expect(await header.locator(".version").textContent()).toBe(`v${VERSION}`);
      expect(await header.textContent()).toContain("read-only");
      // A favicon of its own, served by the console.
      const icon = await page.locator('link[rel="icon"]').getAttribute("href");
      expect((await fetch(new URL(icon ?? "", server.url))).headers.get("content-type")).toBe(
        "image/svg+xml",
      );
    } finally {
      await page.close();
      await server.close();
    }
  });
});

describe("search", () => {
  it("marks the matches in their lines, with line numbers, and shows how many files it searched", async () => {
    const store = new InMemoryStore();
    for (let i = 0; i < 450; i++) {
      const name = `n${String(i).padStart(3, "0")}.md`;
      await write(store, `/memories/${name}`, i % 150 === 7 ? `first\nfind the needle, a needle\n` : "hay\n");
    }
    const server = await startConsole(store);
    const page = await browserOf().newPage();
    try {
      await page.goto(server.url);
      await treeItem(page, "n000.md").waitFor();
      await page.getByRole("searchbox").fill("needle");
      await page.getByRole("searchbox").press("Enter");
      const results = page.getByRole("list", { name: "Search results" });
      // Three matching files, read 200 at a time: three requests, and the count of files searched.
      await expect.poll(() => page.locator(".progress").textContent()).toBe(" Searched 450 of 450 files");
      await expect.poll(() => results.getByRole("button").count()).toBe(3);
      const first = results.getByRole("button").first();
      expect(await first.locator(".where").textContent()).toBe("/memories/n007.md:2");
      expect(await first.locator("mark").allTextContents()).toEqual(["needle", "needle"]);
      expect(await first.locator(".text").textContent()).toBe("find the needle, a needle");

      await page.getByRole("searchbox").fill("ne+dle,");
      await page.getByLabel("regex").check();
      await page.getByRole("searchbox").press("Enter");
      await expect.poll(() => first.locator("mark").allTextContents()).toEqual(["needle,"]);
    } finally {
      await page.close();
      await server.close();
    }
  });
});

/** A store that lists tenants: ids, files and bytes from each scope, as `tenants()` describes them. */
class TenantStore extends ForwardingStore {
  readonly ids: string[] = [];
  constructor(private readonly root: InMemoryStore) {
    super(root);
  }
  scope(tenant: string): MemoryStore {
    return this.root.scope(tenant);
  }
  async tenants() {
    const ids = [...this.ids].sort();
    return {
      tenants: await Promise.all(
        ids.map(async (id, i) => ({
          id,
          ...(await usageOf(this.root.scope(id))),
          lastAccess: 1000 * (ids.length - i),
        })),
      ),
    };
  }
}

describe("tenants", () => {
  it("shows what each tenant's history keeps, and follows changes the live feed sees", async () => {
    const root = new InMemoryStore();
    const store = new (class extends TenantStore {
      override scope(tenant: string): MemoryStore {
        return new HistoryStore(root.scope(tenant));
      }
    })(root);
    store.ids.push("ann", "bea");
    const ann = new HistoryStore(root.scope("ann"));
    await write(ann, "/memories/n.md", "first\n");
    await executeCommand(ann, {
      command: "str_replace",
      path: "/memories/n.md",
      old_str: "first",
      new_str: "second, longer",
    });
    const bea = new HistoryStore(root.scope("bea"));
    await write(bea, "/memories/n.md", "b\n");
    const kept = (await ann.usage?.())?.historyBytes;
    // bea's create kept no version; her history holds the change log's record of it.
    const beaKept = (await bea.usage?.())?.historyBytes;
    expect(kept).toBeGreaterThan(0);
    const server = await startConsole(store, { pollMs: 50 });
    const page = await browserOf().newPage();
    const table = page.getByRole("table", { name: "Tenants" });
    const cells = (n: number) => table.locator("tbody tr").nth(n).locator("td");
    try {
      await page.goto(`${server.url}?tenant=ann`);
      await expect.poll(() => cells(0).nth(3).textContent()).toBe(`${kept} B`);
      expect(await cells(1).nth(3).textContent()).toBe(`${beaKept} B`);
      expect(await table.getByRole("columnheader").allTextContents()).toContain("History");
      const files = await cells(0).nth(1).textContent();
      await page.getByText("connected", { exact: true }).waitFor();
      await write(ann, "/memories/more.md", "another\n");
      await expect.poll(() => cells(0).nth(1).textContent()).toBe(String(Number(files) + 1));
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("shows no table for a store that lists no tenants", async () => {
    const store = new TenantStore(new InMemoryStore());
    await write(store.inner, "/memories/solo.md", "one tenant\n");
    const server = await startConsole(store);
    const page = await browserOf().newPage();
    try {
      const listed = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith("/api/tenants"));
      await page.goto(server.url);
      expect(await (await listed).json()).toEqual({ tenants: [] });
      await treeItem(page, "solo.md").waitFor();
      expect(await page.getByRole("table", { name: "Tenants" }).count()).toBe(0);
      expect(await page.getByRole("heading", { name: "Tenants" }).count()).toBe(0);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("sort by any column, and the chosen tenant is marked", async () => {
    const root = new InMemoryStore();
    const store = new TenantStore(root);
    for (const [id, text] of [
      ["ann", "a"],
      ["bea", "a much longer note than the others"],
      ["cid", "medium note"],
    ] as const) {
      store.ids.push(id);
      await write(root.scope(id), "/memories/n.md", text);
    }
    const server = await startConsole(store);
    const page = await browserOf().newPage();
    const table = page.getByRole("table", { name: "Tenants" });
    const ids = () => table.locator("tbody tr td:first-child").allTextContents();
    try {
      await page.goto(server.url);
      await expect.poll(ids).toEqual(["ann", "bea", "cid"]);
      await table.getByRole("button", { name: "Bytes" }).click();
      await expect.poll(ids).toEqual(["bea", "cid", "ann"]);
      expect(await table.getByRole("columnheader", { name: /Bytes/ }).getAttribute("aria-sort")).toBe(
        "descending",
      );
      await table.getByRole("button", { name: "Bytes" }).click();
      await expect.poll(ids).toEqual(["ann", "cid", "bea"]);
      await table.getByRole("button", { name: "Last access" }).click();
      await expect.poll(ids).toEqual(["ann", "bea", "cid"]);
      await table.getByRole("button", { name: "cid" }).click();
      await expect.poll(() => table.locator("tr.selected td:first-child").textContent()).toBe("cid");
    } finally {
      await page.close();
      await server.close();
    }
  });
});

/**
 * A store with a change log of the shape `@mem/history`'s `changes()` and `rollback()` have: it records
 * the options each call gets, and filters by actor and path as the real one does.
 */
class LoggedStore extends ForwardingStore {
  readonly log: ChangeRow[] = [];
  readonly asked: ChangeQuery[] = [];
  readonly rollbacks: RollbackRequest[] = [];
  async changes(options: ChangeQuery) {
    this.asked.push(options);
    const changes = this.log.filter(
      (c) =>
        (options.by === undefined || c.actor === options.by) &&
        (options.path === undefined || c.path === options.path || c.path.startsWith(`${options.path}/`)),
    );
    return { changes };
  }
  async rollback(options: RollbackRequest) {
    this.rollbacks.push(options);
    return { id: "rb-1", restored: ["/memories/a.md"], deleted: ["/memories/b.md"], skipped: [] };
  }
}

describe("the audit view", () => {
  const fill = async () => {
    const store = new LoggedStore(new InMemoryStore());
    await write(store.inner, "/memories/a.md", "a\n");
    const now = Date.now();
    store.log.push(
      {
        id: "c1",
        time: now - 3 * 3600_000,
        actor: "agent-7",
        command: "create",
        path: "/memories/a.md",
        version: null,
      },
      {
        id: "c2",
        time: now - 2 * 3600_000,
        actor: "agent-9",
        command: "create",
        path: "/memories/b.md",
        version: null,
      },
      {
        id: "c3",
        time: now - 60_000,
        actor: "agent-7",
        command: "rename",
        path: "/memories/a.md",
        newPath: "/memories/old/a\u202Egpj.md",
        version: "v3",
      },
      { id: "c4", time: now - 5_000, actor: null, command: "restore", path: "/memories/a.md", version: "v4" },
    );
    return { store, now };
  };

  it("lists who changed what and when, in words, filtered; read-only tokens cannot roll back", async () => {
    const { store } = await fill();
    const token = "a-read-only-token-for-support";
    const server = await startConsole(store, { token, writeToken: "a-write-token-for-operators" });
    const page = await browserOf().newPage();
    try {
      await page.goto(server.loginUrl);
      await treeItem(page, "a.md").waitFor();
      await page.getByRole("button", { name: "Audit" }).click();
      const table = page.getByRole("table", { name: "Changes" });
      await expect.poll(() => table.locator("tbody tr").count()).toBe(4);
      const row = (n: number) => table.locator("tbody tr").nth(n).locator("td");
      expect(await row(0).allTextContents()).toEqual(["3 hours ago", "agent-7", "create", "/memories/a.md"]);
      expect(await row(2).allTextContents()).toEqual([
        "1 minute ago",
        "agent-7",
        "rename",
        "/memories/a.md → /memories/old/a\\u202Egpj.md",
      ]);
      const restore = await row(3).allTextContents();
      expect(restore[0]).toMatch(/^\d+ seconds ago$/);
      expect(restore.slice(1)).toEqual(["unnamed", "restore", "/memories/a.md"]);
      expect(await table.getByRole("button", { name: /Roll back/ }).count()).toBe(0);

      await page.getByLabel("Actor").fill("agent-7");
      await page.getByLabel("Path").fill("/memories/a.md");
      await page.getByLabel("Since").fill("2020-01-02T03:04:05Z");
      await page.getByRole("button", { name: "Filter" }).click();
      await expect.poll(() => table.locator("tbody tr").count()).toBe(2);
      expect(store.asked.at(-1)).toEqual({
        limit: 100,
        by: "agent-7",
        path: "/memories/a.md",
        since: Date.UTC(2020, 0, 2, 3, 4, 5),
      });
      // The API refuses a rollback to a read-only session, whatever the page shows.
      const refused = await page.evaluate(async () => {
        const response = await fetch("api/rollback", { method: "POST", body: JSON.stringify({ to: 1 }) });
        return response.status;
      });
      expect(refused).toBe(403);
      expect(store.rollbacks).toEqual([]);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("rolls back to a change with the write token, after a confirmation", async () => {
    const { store } = await fill();
    const writeToken = "a-write-token-for-operators";
    const server = await startConsole(store, { token: "a-read-only-token-for-support", writeToken });
    const page = await browserOf().newPage();
    try {
      await page.goto(`${server.url}?token=${writeToken}`);
      await treeItem(page, "a.md").waitFor();
      expect(await page.locator("header.top").textContent()).toContain("writes allowed");
      await page.getByRole("button", { name: "Audit" }).click();
      const table = page.getByRole("table", { name: "Changes" });
      await page.getByLabel("Actor").fill("agent-9");
      await page.getByRole("button", { name: "Filter" }).click();
      await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
      await table.getByRole("button", { name: "Roll back to here…" }).click();
      expect(store.rollbacks).toEqual([]);
      await table.getByRole("button", { name: "Yes, roll back" }).click();
      await expect
        .poll(() => page.locator("output.note").textContent())
        .toMatch(/^Rolled back to .+: 1 restored, 1 deleted, 0 left as they are\.$/);
      expect(store.rollbacks).toEqual([{ to: store.log[1]?.time, by: "agent-9", actor: "console" }]);
    } finally {
      await page.close();
      await server.close();
    }
  });

  it("is not offered for a store without a change log", async () => {
    const server = await startConsole(new InMemoryStore());
    try {
      const info = (await (await fetch(`${server.url}api/info`)).json()) as { audit: boolean };
      expect(info.audit).toBe(false);
      const changes = await fetch(`${server.url}api/changes`);
      expect(changes.status).toBe(404);
      expect(await changes.json()).toEqual({
        error: "this store keeps no change log (open it with ?history)",
      });
    } finally {
      await server.close();
    }
  });
});
