/** `sqlite:<file>`: one SQLite database file, created when missing (not by read-only commands). */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { importAdapter } from "./adapter.js";
import { type Backend, expiryOption } from "./backend.js";
import { NoStoreError, StoreUrlError } from "./errors.js";

export interface SqliteSpec {
  kind: "sqlite";
  /** As written in the URL; a relative path is resolved against the working directory when opened. */
  file: string;
}

export const sqliteBackend: Backend<SqliteSpec> = {
  kind: "sqlite",
  schemes: ["sqlite"],
  form: "sqlite:<file>",
  parse(url) {
    const path = url.slice(url.indexOf(":") + 1);
    // `sqlite://file` would read as a host; the form is `sqlite:<path>`.
    const file = path.startsWith("//") ? path.slice(2) : path;
    if (file === "") throw new StoreUrlError('Store URL "sqlite:" needs a file, e.g. sqlite:./memory.db');
    if (file.includes("\0"))
      throw new StoreUrlError("Store URL: the sqlite file name contains a NUL character.");
    if (file.includes("?")) {
      throw new StoreUrlError(
        'Store URL: sqlite: takes no query other than ?tenant= (a file name with "?" cannot be used).',
      );
    }
    return { kind: "sqlite", file };
  },
  describe: (spec) => `SQLite database ${spec.file}`,
  async open(spec, context) {
    const path = resolve(context.cwd, spec.file);
    // Read-only commands must not leave an empty database behind for a file name typed wrong.
    if (context.create === false && !existsSync(path)) throw new NoStoreError(spec.file);
    const { SqliteStore } = await importAdapter(
      { needed: "sqlite:", name: "@mem/sqlite" },
      () => import("@mem/sqlite"),
    );
    return new SqliteStore({ path, ...expiryOption(context) });
  },
};
