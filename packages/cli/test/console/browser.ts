/**
 * The console's browser tests run Debian's chromium through playwright-core (never a downloaded browser),
 * with every background request turned off: the page must work with nothing but the console's server.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
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

/** Builds the console's page when its dist is missing (tests run against sources, the page is built). */
export const ensureConsoleBuilt = (): void => {
  const dir = fileURLToPath(new URL("../../../console/", import.meta.url));
  if (existsSync(`${dir}dist/index.html`)) return;
  execFileSync("npx", ["vite", "build", "--logLevel", "warn"], { cwd: dir, stdio: "inherit" });
};
