/**
 * Debian's chromium driven by playwright-core (never a downloaded browser), with every background
 * request turned off, so a page under test works with nothing but its own server. The console's browser
 * tests, its bench and the screenshots script launch it the same way.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** The browser's executable: Debian's chromium, or `MEM_CHROMIUM`. */
export const CHROMIUM = process.env["MEM_CHROMIUM"] ?? "/usr/bin/chromium";

/** Headless, no sandbox (root in CI), and nothing that reaches the network on its own. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Launches {@link CHROMIUM}; fails loudly, saying how to install it, when it is missing. */
export const launchChromium = (): Promise<Browser> => {
  if (!existsSync(CHROMIUM)) {
    const bar = "!".repeat(78);
    throw new Error(
      `\n${bar}\n!! CHROMIUM IS NOT INSTALLED: ${CHROMIUM} is missing. The console's browser tests need it.\n` +
        "!! Run `node scripts/ensure-servers.mjs` (as root it installs Debian's chromium), or\n" +
        `!! apt-get install -y chromium, or set MEM_CHROMIUM to a Chromium executable.\n${bar}`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS] });
};
