/**
 * The console's browser tests run Debian's chromium through playwright-core (never a downloaded browser),
 * with every background request turned off: the page must work with nothing but the console's server.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

export { CHROMIUM, launchChromium as launch } from "@mem/testkit/chromium";

/** The newest modification time of the page's sources (a build older than it is stale). */
const newestSource = (dir: string): number => {
  let newest = 0;
  const visit = (path: string) => {
    const stat = statSync(path);
    if (stat.isDirectory()) for (const name of readdirSync(path)) visit(`${path}/${name}`);
    else newest = Math.max(newest, stat.mtimeMs);
  };
  for (const name of ["src", "index.html", "vite.config.ts", "package.json"]) visit(`${dir}${name}`);
  return newest;
};

/**
 * Builds the console's page when its dist is missing or older than its sources (the tests run against
 * sources; the page must be built from them). Test files run in parallel: each builds into a folder of
 * its own, and the first to finish moves it into place.
 */
export const ensureConsoleBuilt = (): void => {
  const dir = fileURLToPath(new URL("../../../console/", import.meta.url));
  const built = `${dir}dist/index.html`;
  if (existsSync(built) && statSync(built).mtimeMs >= newestSource(dir)) return;
  const own = `dist-${process.pid}-${Date.now()}`;
  execFileSync("npx", ["vite", "build", "--logLevel", "warn", "--outDir", own], {
    cwd: dir,
    stdio: "inherit",
  });
  try {
    // A stale build goes first; a build another test file just moved in is as fresh as this one.
    if (existsSync(built) && statSync(built).mtimeMs < newestSource(dir)) {
      rmSync(`${dir}dist`, { recursive: true, force: true });
    }
    renameSync(`${dir}${own}`, `${dir}dist`);
  } catch {
    // Another test file's build is in place.
  } finally {
    rmSync(`${dir}${own}`, { recursive: true, force: true });
  }
};
