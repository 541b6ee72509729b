/** `fs:<directory>`: a local directory. */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { importAdapter } from "./adapter.js";
import { type Backend, expiryOption } from "./backend.js";
import { NoStoreError, StoreUrlError } from "./errors.js";

export interface FsSpec {
  kind: "fs";
  /** As written in the URL; relative paths are resolved against the working directory when opened. */
  root: string;
}

export const fsBackend: Backend<FsSpec> = {
  kind: "fs",
  schemes: ["fs"],
  form: "fs:<directory>",
  parse(url) {
    const path = url.slice(url.indexOf(":") + 1);
    // `fs://dir` would read as a host; the form is `fs:<path>`.
    const root = path.startsWith("//") ? path.slice(2) : path;
    if (root === "") throw new StoreUrlError('Store URL "fs:" needs a directory, e.g. fs:./memory');
    if (root.includes("\0")) throw new StoreUrlError("Store URL: the fs directory contains a NUL character.");
    return { kind: "fs", root };
  },
  describe: (spec) => `directory ${spec.root}`,
  async open(spec, context) {
    const root = resolve(context.cwd, spec.root);
    // FsStore creates its root; a reader must not leave an empty directory behind.
    if (context.create === false && !existsSync(root)) throw new NoStoreError(spec.root);
    const { FsStore } = await importAdapter({ needed: "fs:", name: "@mem/fs" }, () => import("@mem/fs"));
    return new FsStore({ root, ...expiryOption(context) });
  },
};
