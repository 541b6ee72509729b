#!/usr/bin/env node
// Regenerates docs/console-light.png and docs/console-dark.png: `mem serve`'s console over a small demo
// store with history, shown by Debian's chromium (MEM_CHROMIUM overrides the path) through playwright-core.
// Run from the repository: node scripts/console-screenshots.mjs (it builds the page first when missing).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

// The server and stores are TypeScript sources: run again under tsx, with the workspace's source condition.
if (!process.env.MEM_SCREENSHOTS_CHILD) {
  const result = spawnSync(
    process.execPath,
    ["--conditions=@mem/source", "--import", "tsx", fileURLToPath(import.meta.url)],
    { stdio: "inherit", env: { ...process.env, MEM_SCREENSHOTS_CHILD: "1" } },
  );
  process.exit(result.status ?? 1);
}

if (!existsSync(join(root, "packages/console/dist/index.html"))) {
  execFileSync("npx", ["vite", "build", "--logLevel", "warn"], {
    cwd: join(root, "packages/console"),
    stdio: "inherit",
  });
}

const { executeCommand } = await import("../packages/core/src/index.ts");
const { openStore } = await import("../packages/cli/src/index.ts");
const { startConsole } = await import("../packages/cli/src/serve/server.ts");
const { launchChromium } = await import("../packages/testkit/src/chromium.ts");

const dir = mkdtempSync(join(tmpdir(), "mem-console-shots-"));
const store = await openStore(`fs:${dir}?history`);
const run = (input, actor) => executeCommand(store, input, actor ? { actor } : {});
await run({
  command: "create",
  path: "/memories/users/alice/preferences.md",
  file_text: "# Preferences\n\n- Language: TypeScript\n- Tests: vitest\n- Editor: vim\n",
});
await run({
  command: "create",
  path: "/memories/users/alice/projects/mem.md",
  file_text: "# mem\n\nMemory backends for Claude's memory tool.\n\n## Open questions\n- Quotas per tenant\n",
});
await run({
  command: "create",
  path: "/memories/users/bob/notes.md",
  file_text: "Bob prefers short answers.\n",
});
await run({
  command: "create",
  path: "/memories/team/glossary.md",
  file_text: "SPEC: the behaviour, to the byte.\n",
});
await run(
  {
    command: "str_replace",
    path: "/memories/users/alice/preferences.md",
    old_str: "Editor: vim",
    new_str: "Editor: helix",
  },
  "support-agent",
);
await run(
  {
    command: "insert",
    path: "/memories/users/alice/preferences.md",
    insert_line: 5,
    insert_text: "- Answers: short, with code\n",
  },
  "planner",
);

const server = await startConsole(store, {
  allowWrites: true,
  pollMs: 500,
  store: { name: "fs:./memory-demo?history", backend: "directory ./memory-demo, with history" },
});
const browser = await launchChromium();
try {
  for (const scheme of ["light", "dark"]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 760 }, colorScheme: scheme });
    await page.goto(server.loginUrl);
    const item = (name) => page.getByRole("tree").getByRole("treeitem", { name, exact: true });
    await item("users").click();
    await item("alice").click();
    await item("preferences.md").click();
    const file = page.getByRole("region", { name: "File" });
    await file.getByRole("tab", { name: "History" }).click();
    await file.getByLabel("Diff", { exact: true }).waitFor();
    await page.getByRole("searchbox").fill("short");
    await page.getByRole("searchbox").press("Enter");
    await page.getByRole("list", { name: "Search results" }).locator("mark").first().waitFor();
    await page.getByText("connected", { exact: true }).waitFor();
    await run(
      { command: "create", path: "/memories/team/standup.md", file_text: "Ship the console.\n" },
      "planner",
    );
    await page.getByRole("list", { name: "Live changes" }).getByText("/memories/team/standup.md").waitFor();
    await page.screenshot({ path: join(root, `docs/console-${scheme}.png`) });
    await run({ command: "delete", path: "/memories/team/standup.md" });
    await page.close();
    console.log(`console-screenshots: docs/console-${scheme}.png`);
  }
} finally {
  await browser.close();
  await server.close();
  await store.close?.();
  rmSync(dir, { recursive: true, force: true });
}
