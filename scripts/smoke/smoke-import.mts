// Runs in a throw-away npm project that installed the packed tarballs (see scripts/pack-check.mjs):
// every entry point loads through `import` and `require` with the same names, and a command runs on FsStore
// and on SqliteStore (so better-sqlite3's native binary installed with the tarballs loads and works).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand, type MemoryStore } from "@mem/core";
import { FsStore } from "@mem/fs";
import { SqliteStore } from "@mem/sqlite";

const require = createRequire(import.meta.url);
const names = (namespace: object): string =>
  Object.keys(namespace)
    .filter((name) => name !== "__esModule" && name !== "module.exports")
    .sort()
    .join(", ");

const entries: string[] = JSON.parse(readFileSync(new URL("../entries.json", import.meta.url), "utf8"));
for (const entry of entries) {
  const imported = names(await import(entry));
  const required = names(require(entry));
  if (imported === "") throw new Error(`${entry} exports nothing`);
  if (imported !== required)
    throw new Error(`${entry}: import gives [${imported}], require gives [${required}]`);
}

const root = mkdtempSync(join(tmpdir(), "mem-smoke-fs-"));
try {
  const stores: MemoryStore[] = [
    new FsStore({ root: join(root, "fs") }),
    new SqliteStore({ path: join(root, "memory.db") }),
  ];
  for (const store of stores) {
    await executeCommand(store, { command: "create", path: "/memories/notes.md", file_text: "# Notes\n" });
    const { content, isError } = await executeCommand(store, { command: "view", path: "/memories/notes.md" });
    const expected = "Here's the content of /memories/notes.md with line numbers:\n     1\t# Notes";
    if (isError || content !== expected)
      throw new Error(`import: unexpected result on ${store.backend}: ${JSON.stringify(content)}`);
    await store.close?.();
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}
console.log(
  `import: ${entries.length} entry points load both ways; a command ran on FsStore and SqliteStore`,
);
