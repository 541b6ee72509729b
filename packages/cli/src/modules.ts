/**
 * `mem --require MODULE`: modules loaded before the command runs, so that the schemes they register with
 * `@mem/open`'s `registerScheme` can be opened by every command, `mem mcp` included.
 */
import { createRequire } from "node:module";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { CommandError } from "./context.js";

/** Where `specifier` points: a path (`./x.mjs`, `/abs/x.js`) against `cwd`, or a package installed there. */
const locate = (specifier: string, cwd: string): string => {
  if (specifier.startsWith(".") || isAbsolute(specifier)) return pathToFileURL(resolve(cwd, specifier)).href;
  try {
    return pathToFileURL(createRequire(join(cwd, "package.json")).resolve(specifier)).href;
  } catch {
    throw new CommandError(`--require: cannot find ${specifier} from ${cwd}`, 2);
  }
};

/** Imports each module in order; one that cannot be found is a usage error, one that throws a failure. */
export const loadModules = async (specifiers: readonly string[], cwd: string): Promise<void> => {
  for (const specifier of specifiers) {
    const url = locate(specifier, cwd);
    try {
      await import(url);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ERR_MODULE_NOT_FOUND" && (error as Error).message.includes(url.replace("file://", ""))) {
        throw new CommandError(`--require: cannot find ${specifier} from ${cwd}`, 2);
      }
      throw new CommandError(
        `--require ${specifier}: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
};
