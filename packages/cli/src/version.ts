/** The version of this package (`@mem/cli`), read once from its package.json: what the console shows. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// From src/ and dist/ the package.json is one folder up; from dist/cjs/, two.
const CANDIDATES = ["../package.json", "../../package.json"];

let found: string | undefined;

/** `@mem/cli`'s version, e.g. `0.3.1` (`0.0.0` when its package.json cannot be read). */
export const cliVersion = (): string => {
  if (found !== undefined) return found;
  found = "0.0.0";
  for (const relative of CANDIDATES) {
    try {
      const json = JSON.parse(readFileSync(fileURLToPath(new URL(relative, import.meta.url)), "utf8")) as {
        name?: unknown;
        version?: unknown;
      };
      if (json.name === "@mem/cli" && typeof json.version === "string") {
        found = json.version;
        break;
      }
    } catch {
      // The next candidate.
    }
  }
  return found;
};
