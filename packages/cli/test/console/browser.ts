/**
 * The console's browser tests run Debian's chromium through playwright-core (never a downloaded browser),
 * with every background request turned off: the page must work with nothing but the console's server.
 */
import { execFileSync } from "node:child_process";
import { existsSync, renameSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";

export const CHROMIUM = process.env["MEM_CHROMIUM"] ?? "/usr/bin/chromium";

export const launch = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });

/**
 * Builds the console's page when its dist is missing (the tests run against sources; the page must be
 * built). Test files run in parallel: each builds into a folder of its own, and the first to finish
 * moves it into place.
 */
export const ensureConsoleBuilt = (): void => {
  const dir = fileURLToPath(new URL("../../../console/", import.meta.url));
  if (existsSync(`${dir}dist/index.html`)) return;
  const own = `dist-${process.pid}-${Date.now()}`;
  execFileSync("npx", ["vite", "build", "--logLevel", "warn", "--outDir", own], {
    cwd: dir,
    stdio: "inherit",
  });
  try {
    renameSync(`${dir}${own}`, `${dir}dist`);
  } catch {
    // Another test file's build is in place.
  } finally {
    rmSync(`${dir}${own}`, { recursive: true, force: true });
  }
};
