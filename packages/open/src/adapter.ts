/**
 * Adapters are optional peer dependencies: each is imported only when a URL names it, so a user who opens
 * `redis://` installs neither the AWS SDK nor a SQLite build, and one that is missing says what to install.
 */
import { StoreSetupError } from "./errors.js";

export interface AdapterPackage {
  /** What needs it, as the user wrote it: `redis://`, `sqlite:`, `encrypted+`. */
  readonly needed: string;
  /** The package imported, e.g. `@mem/redis`. */
  readonly name: string;
  /** What to install for it, when more than the package itself (a peer dependency of its own). */
  readonly install?: readonly string[];
}

const NOT_FOUND = new Set(["ERR_MODULE_NOT_FOUND", "MODULE_NOT_FOUND"]);

/** Whether `error` says that one of `names` cannot be resolved (not a failure inside a module that loaded). */
const isMissing = (error: unknown, names: readonly string[]): boolean => {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code !== "string" || !NOT_FOUND.has(code) || typeof message !== "string") return false;
  return names.some((name) => message.includes(`'${name}'`) || message.includes(`"${name}"`));
};

/**
 * Imports an adapter through `importer` (a dynamic `import()` of `adapter.name`). When the package, or a
 * package it names in `install`, cannot be resolved, throws a `StoreSetupError` of one line:
 * `redis:// needs @mem/redis: npm install @mem/redis`. Any other failure is a `StoreSetupError` that
 * keeps the cause.
 *
 * @example
 * ```ts
 * import { importAdapter } from "@mem/open";
 *
 * const { FsStore } = await importAdapter({ needed: "fs:", name: "@mem/fs" }, () => import("@mem/fs"));
 * ```
 */
export const importAdapter = async <T>(adapter: AdapterPackage, importer: () => Promise<T>): Promise<T> => {
  const install = [adapter.name, ...(adapter.install ?? [])];
  try {
    return await importer();
  } catch (error) {
    if (isMissing(error, install)) {
      throw new StoreSetupError(`${adapter.needed} needs ${adapter.name}: npm install ${install.join(" ")}`, {
        cause: error,
      });
    }
    throw new StoreSetupError(
      `Could not load ${adapter.name}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
};
