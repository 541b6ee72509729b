/** The console over a store made of mounts, in real Chromium: mount points, locks, history per mount. */
import { InMemoryStore, type MemoryStore, mountStores } from "@mem/core";
import { HistoryStore } from "@mem/history";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startConsole } from "../src/serve/server.js";
import { ensureConsoleBuilt, launch } from "./helpers/browser.js";

let browser: Browser;
beforeAll(async () => {
  ensureConsoleBuilt();
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
});

const bytes = (s: string) => new TextEncoder().encode(s);

/** A file with one earlier version in `store` (a history store). */
const twoVersions = async (store: MemoryStore, path: string) => {
  const first = await store.write(path, bytes("one\n"), { ifAbsent: true });
  await store.write(path, bytes("two\n"), { ifVersion: first.version });
};

describe("the console over mounted stores", () => {
  it("shows a lock on read-only mounts and offers restore only where the mount may be written", async () => {
    const home = new HistoryStore(new InMemoryStore());
    const team = new HistoryStore(new InMemoryStore());
    await twoVersions(home, "/memories/mine.md");
    await twoVersions(team, "/memories/rules.md");
    const memory = mountStores({
      "/memories": { store: home },
      "/memories/team": { store: team, access: "read_only" },
    });
    const running = await startConsole(memory, { allowWrites: true });
    const page = await browser.newPage();
    try {
      await page.goto(running.loginUrl);
      const tree = page.getByRole("tree");
      const teamItem = tree.getByRole("treeitem", { name: "team", exact: true });
      await teamItem.waitFor();
      expect(await teamItem.getByRole("img", { name: "read-only mount" }).count()).toBe(1);
      const mine = tree.getByRole("treeitem", { name: "mine.md", exact: true });
      expect(await mine.getByRole("img", { name: "read-only mount" }).count()).toBe(0);

      const file = page.getByRole("region", { name: "File" });
      const history = file.getByRole("list", { name: "History" });
      await mine.click();
      await file.getByRole("tab", { name: "History" }).click();
      await expect.poll(() => history.getByRole("listitem").count()).toBe(1);
      expect(await file.getByRole("button", { name: "Restore…" }).count()).toBe(1);

      await teamItem.click();
      await tree.getByRole("treeitem", { name: "rules.md", exact: true }).click();
      await file.getByRole("tab", { name: "History" }).click();
      await expect.poll(() => history.getByRole("listitem").count()).toBe(1);
      expect(await file.getByRole("button", { name: "Restore…" }).count()).toBe(0);

      const info = await page.evaluate(async () => (await fetch("api/info")).json());
      expect(info.mounts).toEqual([
        { path: "/memories", access: "read_write" },
        { path: "/memories/team", access: "read_only" },
      ]);
      const [version] = await team.versions("/memories/rules.md");
      const refused = await page.evaluate(
        async ([csrf, id]) => {
          const response = await fetch("api/restore", {
            method: "POST",
            headers: { "x-mem-csrf": csrf as string },
            body: JSON.stringify({ path: "/memories/team/rules.md", id }),
          });
          return { status: response.status, body: await response.json() };
        },
        [info.csrf as string, version?.id],
      );
      expect(refused).toEqual({
        status: 403,
        body: { error: "/memories/team/rules.md is in a read-only mount: it cannot be restored" },
      });
      expect(new TextDecoder().decode((await team.read("/memories/rules.md"))?.data)).toBe("two\n");
    } finally {
      await page.close();
      await running.close();
    }
  }, 120_000);
});
