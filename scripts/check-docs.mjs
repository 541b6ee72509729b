#!/usr/bin/env node
// Keeps the documentation honest: every code fence of the READMEs (the root's and every workspace
// package's) and of CONTRIBUTING.md and SECURITY.md is paired and names its language, every ```ts
// block compiles against the built packages, as a user who installed them would write it, and every
// table of store URLs shows the same forms.
//
// The blocks go into one throw-away project (.tmp/docs-check) whose node_modules resolve each public
// @mem/* package to its folder, so to its built `dist/` through `exports` (run `pnpm build`, or
// pack-check, first); private packages (testkit) resolve to their TypeScript sources, since they are never
// built for users. Other packages the blocks import are linked from the workspace package that depends on
// them. One `tsc` run checks all blocks; each block is a module of its own.
//
// A block that is deliberately incomplete is marked ```ts fragment and is not compiled (CONTRIBUTING.md
// says when that is fair). The free names a snippet may use without declaring them, for what the
// application around it provides, are the few in PLACEHOLDERS below.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { root, workspacePackages } from "./workspace.mjs";

const started = Date.now();
const problems = [];

// What a snippet may take as given: the store and tool input it works on, the application's logger and
// audit log, and `MyStore`, the reader's own store (any options, like every built-in store's).
const PLACEHOLDERS = `import type { InMemoryStoreOptions, MemoryStore } from "@mem/core";
import { InMemoryStore } from "@mem/core";
declare global {
  /** The reader's own store. */
  class MyStore extends InMemoryStore {
    constructor(options?: InMemoryStoreOptions);
  }
  /** The store a snippet works on. */
  const store: MemoryStore;
  /** A tool input as it came from the model. */
  const input: unknown;
  /** The application's logger and audit log. */
  const logger: { error(fields: object, message: string): void; info(fields: object, message: string): void };
  const audit: { log(entry: unknown): void };
}
`;

const packages = workspacePackages();

const documents = [
  "README.md",
  "CONTRIBUTING.md",
  "SECURITY.md",
  "docs/architecture.md",
  ...packages.map(({ dir }) => `${dir}/README.md`),
].filter((file) => existsSync(join(root, file)));

/**
 * The fenced blocks of a Markdown text. CommonMark rules, strict where they allow ambiguity: an opening
 * fence must name a language (so a stray closing fence cannot silently open a block), a closing fence has
 * no info string and at least the opening's length, and no fence stays open at the end.
 */
function fencedBlocks(file, text) {
  const blocks = [];
  let open;
  text.split("\n").forEach((line, index) => {
    let fence = /^( {0,3}|\s*)(`{3,}|~{3,})\s*(.*)$/.exec(line);
    // A backtick fence's info string has no backticks: such a line starts an inline code span instead.
    if (fence?.[2][0] === "`" && fence[3].includes("`")) fence = null;
    if (open) {
      if (fence && fence[2][0] === open.char && fence[2].length >= open.length && fence[3] === "") {
        blocks.push({ ...open, end: index + 1 });
        open = undefined;
      } else {
        open.lines.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line.trimStart());
      }
      return;
    }
    if (!fence) return;
    const [, indent, marks, info] = fence;
    if (info === "") {
      problems.push(`${file}:${index + 1}: a fence opens without a language (an unpaired closing fence?)`);
    }
    open = { info, indent, char: marks[0], length: marks.length, start: index + 1, lines: [] };
  });
  if (open) problems.push(`${file}:${open.start}: this fence is never closed`);
  return blocks;
}

// A "Store URLs" table (the CLI's, the demo's) lists every kind of URL `openStore` reads, in the form a
// user types: credentials as `user:password@`; the masked `user:***@` is what output shows, never a form.
const URL_FORMS = [
  "`fs:",
  "`redis://[user:password@]host:port/prefix`",
  "`s3://bucket/prefix",
  "`postgres://[user:password@]host:port/database`",
  "`encrypted+",
];
function checkStoreUrlTables(file, text) {
  const lines = text.split("\n");
  lines.forEach((line, index) => {
    if (!/^#+ Store URLs\s*$/.test(line)) return;
    const rows = [];
    for (let i = index + 1; i < lines.length && !/^#/.test(lines[i]); i += 1) {
      if (lines[i].startsWith("| `")) rows.push({ line: i + 1, cell: lines[i].slice(2).split(" | ")[0] });
    }
    for (const form of URL_FORMS) {
      if (!rows.some(({ cell }) => cell.startsWith(form)))
        problems.push(`${file}:${index + 1}: the store URL table has no row starting ${form}`);
    }
    for (const { line, cell } of rows) {
      if (cell.includes("***")) problems.push(`${file}:${line}: a URL form shows a masked password`);
    }
  });
}

const project = join(root, ".tmp", "docs-check");
rmSync(project, { recursive: true, force: true });
mkdirSync(join(project, "blocks"), { recursive: true });

const sources = new Map(); // block file -> { file, start }
const specifiers = new Set();
let fragments = 0;
const diagrams = new Map(); // document -> its Mermaid blocks
for (const file of documents) {
  const text = readFileSync(join(root, file), "utf8");
  checkStoreUrlTables(file, text);
  for (const block of fencedBlocks(file, text)) {
    const [language, ...flags] = block.info.split(/\s+/);
    if (language === "mermaid") diagrams.set(file, [...(diagrams.get(file) ?? []), block.lines.join("\n")]);
    if (language !== "ts" && language !== "typescript") continue;
    if (flags.includes("fragment")) {
      fragments += 1;
      continue;
    }
    const name = `${file.replace(/[/.]/g, "_")}_${block.start}.ts`;
    const code = block.lines.join("\n");
    for (const [, specifier] of code.matchAll(/(?:from|import)\s*\(?\s*["']([^"'.][^"']*)["']/g)) {
      specifiers.add(specifier);
    }
    writeFileSync(join(project, "blocks", name), `${code}\nexport {};\n`);
    sources.set(`blocks/${name}`, { file, start: block.start });
  }
}

// The layer diagram is explained in docs/architecture.md and shown in the root README: one diagram.
const [layers] = diagrams.get("docs/architecture.md") ?? [];
if (!layers) problems.push("docs/architecture.md: the layer diagram (a mermaid block) is missing");
else if (!diagrams.get("README.md")?.includes(layers)) {
  problems.push("README.md: the layer diagram differs from the one in docs/architecture.md");
}

// node_modules: @mem/* from the workspace, everything else from a workspace package that depends on it.
const link = (target, name) => {
  const path = join(project, "node_modules", name);
  if (existsSync(path)) return;
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path, "dir");
};
for (const { dir, manifest } of packages) {
  if (!manifest.name?.startsWith("@mem/")) continue;
  if (manifest.private !== true) {
    for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
      const types = conditions?.import?.types ?? conditions?.types;
      if (types && !existsSync(join(root, dir, types))) {
        problems.push(`${manifest.name}${subpath.slice(1)}: ${types} is missing; build the packages first`);
      }
    }
    link(join(root, dir), manifest.name);
  } else if (existsSync(join(root, dir, "src", "index.ts"))) {
    // Each entry point (`.`, `./integration-checks`, ...) re-exports the source its @mem/source condition names.
    const shim = join(project, "node_modules", manifest.name);
    mkdirSync(shim, { recursive: true });
    const exports = {};
    for (const [subpath, conditions] of Object.entries(manifest.exports ?? {})) {
      const entry = conditions?.["@mem/source"];
      if (!entry) continue;
      const declarations = `./${subpath === "." ? "index" : subpath.slice(2)}.d.ts`;
      exports[subpath] = { types: declarations };
      const source = relative(shim, join(root, dir, entry.replace(/\.ts$/, ".js")));
      writeFileSync(join(shim, declarations), `export * from "${source}";\n`);
    }
    writeFileSync(
      join(shim, "package.json"),
      JSON.stringify({ name: manifest.name, type: "module", types: "./index.d.ts", exports }),
    );
  }
}
for (const specifier of specifiers) {
  if (specifier.startsWith("node:") || specifier.startsWith("@mem/")) continue;
  const name = specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
  const owner = [{ dir: "." }, ...packages].find(({ dir }) =>
    existsSync(join(root, dir, "node_modules", name)),
  );
  if (!owner) {
    problems.push(`a README imports "${name}", which no workspace package depends on`);
    continue;
  }
  link(join(root, owner.dir, "node_modules", name), name);
  const types = `@types/${name.replace(/^@/, "").replace("/", "__")}`;
  const typed = [{ dir: "." }, ...packages].find(({ dir }) =>
    existsSync(join(root, dir, "node_modules", types)),
  );
  if (typed) link(join(root, typed.dir, "node_modules", types), types);
}
link(join(root, "node_modules", "@types", "node"), "@types/node");

writeFileSync(join(project, "package.json"), `${JSON.stringify({ type: "module", private: true })}\n`);
writeFileSync(join(project, "placeholders.d.ts"), PLACEHOLDERS);
writeFileSync(
  join(project, "tsconfig.json"),
  `${JSON.stringify(
    {
      compilerOptions: {
        target: "ES2023",
        lib: ["ES2023"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      },
      include: ["placeholders.d.ts", "blocks"],
    },
    null,
    2,
  )}\n`,
);

if (problems.length === 0 && sources.size > 0) {
  const tsc = spawnSync(
    process.execPath,
    [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "."],
    {
      cwd: project,
      encoding: "utf8",
    },
  );
  if (tsc.status !== 0) {
    // blocks/<name>.ts(3,7): error ... -> packages/core/README.md:<fence line + 3>:7: error ...
    const output = `${tsc.stdout}${tsc.stderr}`.replace(
      /^(blocks\/[^(]+)\((\d+),(\d+)\)/gm,
      (all, file, line, col) => {
        const source = sources.get(file);
        return source ? `${source.file}:${source.start + Number(line)}:${col}` : all;
      },
    );
    problems.push(`TypeScript blocks do not compile:\n${output.trim()}`);
  }
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
for (const problem of problems) console.error(`check-docs: ${problem}`);
console.log(
  problems.length === 0
    ? `check-docs: ${documents.length} documents, ${sources.size} TypeScript blocks compiled (${fragments} fragments) in ${seconds} s`
    : `check-docs: ${problems.length} problem(s) in ${seconds} s`,
);
process.exit(problems.length === 0 ? 0 : 1);
