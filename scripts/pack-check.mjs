#!/usr/bin/env node
// Packs every public workspace package as `pnpm publish` would and checks what a user would install:
// the packed manifest (no development-only export condition, metadata, LICENSE, a `prepack` that builds),
// source maps that carry their sources, `attw` (profile node16: every entry point typed for `import` and
// `require` under node16 and nodenext) and `publint --strict` on each tarball, then a throw-away npm
// project that installs all tarballs and runs a command through `import` and one through `require`, after
// type-checking both entry files with TypeScript's `node16` and `nodenext` resolutions.
//
// Nothing is built beforehand: every `dist/` is removed and `pnpm pack` must build it through the
// package's `prepack` script, as it would for a release made without a build. `--built` (what
// `pnpm release` passes, right after its own `turbo run build` of every package) packs the builds as
// they are instead of building each package a second time; the checks are the same.
//
// Packages are discovered from pnpm-workspace.yaml: every package.json without `"private": true` is checked,
// so a new public package is covered without touching this script.
//
// `--out <dir>` also leaves the tarballs in that folder (what `pnpm release` uses).
import { spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { root, SCRATCH_INSTALL_FLAGS, workspacePackages } from "./workspace.mjs";

const started = Date.now();
const problems = [];
const bin = (name) => join(root, "node_modules", ".bin", name);

const run = (command, args, options = {}) => {
  const result = spawnSync(command, args, { cwd: root, encoding: "utf8", ...options });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim();
    throw new Error(`${[command, ...args].join(" ")} failed (${result.status ?? result.signal}):\n${output}`);
  }
  return result.stdout;
};

const runAsync = (command, args, options = {}) =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], ...options });
    let output = "";
    child.stdout.on("data", (chunk) => {
      output += chunk;
    });
    child.stderr.on("data", (chunk) => {
      output += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, output }));
  });

// pnpm itself: the one running this script when there is one, else the supported entry point.
const pnpm = (args, options) =>
  process.env.npm_execpath?.includes("pnpm")
    ? run(process.execPath, [process.env.npm_execpath, ...args], options)
    : run("npx", ["-y", "pnpm@10", ...args], options);

const step = (name) => console.log(`pack-check: ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

const publicPackages = workspacePackages().filter(({ manifest }) => manifest.private !== true);
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const license = readFileSync(join(root, "LICENSE"), "utf8");

// A package not released yet is at 0.0.0; its first release must come out as 0.1.0 (what the README
// promises), so some changeset must bump it by "minor". Several changesets combine to the largest bump.
const bumps = new Map();
for (const file of readdirSync(join(root, ".changeset")).filter((name) => name.endsWith(".md"))) {
  const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(root, ".changeset", file), "utf8"))?.[1] ?? "";
  for (const [, name, bump] of front.matchAll(/^["']?([^"':]+)["']?\s*:\s*(\w+)/gm)) {
    bumps.set(name, [...(bumps.get(name) ?? []), bump]);
  }
}
for (const { manifest } of publicPackages) {
  const planned = bumps.get(manifest.name) ?? [];
  if (manifest.version === "0.0.0" && !planned.includes("minor")) {
    problems.push(
      `${manifest.name}: unreleased (0.0.0) but no changeset bumps it by "minor" (first release: 0.1.0)`,
    );
  }
  if (planned.includes("major")) problems.push(`${manifest.name}: a changeset bumps it by "major"`);
}

const built = process.argv.includes("--built");
for (const { dir, manifest } of publicPackages) {
  if (!/\bbuild\b/.test(manifest.scripts?.prepack ?? ""))
    problems.push(`${manifest.name}: no "prepack" script that builds (pnpm pack would ship no dist/)`);
  if (!built) rmSync(join(root, dir, "dist"), { recursive: true, force: true });
}

const outFlag = process.argv.indexOf("--out");
const keep = outFlag < 0 ? undefined : process.argv[outFlag + 1];
if (outFlag >= 0 && !keep) throw new Error("--out needs a folder");
const out = join(root, ".tmp", "pack");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

step(
  `packing (${built ? "the builds as they are" : "prepack builds"}) ${publicPackages.map((p) => p.manifest.name).join(", ")}`,
);
pnpm([
  "-r",
  ...publicPackages.flatMap((p) => ["--filter", p.manifest.name]),
  "pack",
  ...(built ? ["--config.ignore-scripts=true"] : []),
  "--pack-destination",
  out,
]);
const tarballs = publicPackages.map(({ dir, manifest }) => {
  const base = `${manifest.name.replace(/^@/, "").replace("/", "-")}-${manifest.version}`;
  const file = join(out, `${base}.tgz`);
  if (!existsSync(file)) throw new Error(`${manifest.name}: pnpm pack wrote no ${base}.tgz`);
  mkdirSync(join(out, base));
  run("tar", ["-xzf", file, "-C", join(out, base)]);
  if (!existsSync(join(out, base, "package", "dist")))
    problems.push(`${manifest.name}: the tarball has no dist/ (prepack did not build)`);
  return { name: manifest.name, dir, file, unpacked: join(out, base, "package") };
});

step("checking manifests, LICENSE and source maps");
const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
  );
for (const { name, dir, unpacked } of tarballs) {
  const fail = (text) => problems.push(`${name}: ${text}`);
  const packed = readFileSync(join(unpacked, "package.json"), "utf8");
  const manifest = JSON.parse(packed);
  if (packed.includes("@mem/source")) fail('the packed manifest still names the "@mem/source" condition');
  if (packed.includes("workspace:")) fail("the packed manifest still has workspace: ranges");
  for (const field of ["description", "keywords", "homepage", "repository", "bugs", "engines"]) {
    if (manifest[field] === undefined) fail(`package.json lacks "${field}"`);
  }
  if (manifest.license !== "MIT") fail('package.json "license" is not "MIT"');
  if (manifest.publishConfig?.access !== "public") fail('package.json lacks publishConfig.access "public"');
  if (manifest.repository?.directory !== dir) fail(`repository.directory is not "${dir}"`);
  if (manifest.repository?.url !== rootManifest.repository?.url)
    fail("repository.url differs from the root's");
  if (manifest.engines?.node !== rootManifest.engines.node) fail("engines.node differs from the root's");
  if (!existsSync(join(unpacked, "LICENSE"))) fail(`no LICENSE in the tarball (cp LICENSE ${dir}/)`);
  else if (readFileSync(join(unpacked, "LICENSE"), "utf8") !== license)
    fail("LICENSE differs from the root's");
  if (!existsSync(join(unpacked, "README.md"))) fail("no README.md in the tarball");
  for (const file of walk(unpacked)) {
    if (file.endsWith(".ts") && !file.endsWith(".d.ts"))
      fail(`ships TypeScript source ${relative(unpacked, file)}`);
    if (!file.endsWith(".map")) continue;
    const map = JSON.parse(readFileSync(file, "utf8"));
    map.sources.forEach((source, i) => {
      const content = map.sourcesContent?.[i];
      if (typeof content !== "string" && !existsSync(join(dirname(file), map.sourceRoot ?? "", source))) {
        fail(`${relative(unpacked, file)} points at ${source}, which is neither shipped nor inlined`);
      }
    });
  }
}

step("attw and publint --strict");
// No rule is left out: `require` resolves to the CommonJS entry and its declarations (scripts/build-cjs.mjs).
const attw = ["--profile", "node16", "--no-color"];
await Promise.all(
  tarballs.map(async ({ name, file }) => {
    const [types, lint] = await Promise.all([
      runAsync(bin("attw"), [file, ...attw]),
      runAsync(bin("publint"), ["run", file, "--strict"]),
    ]);
    if (types.status !== 0) problems.push(`${name}: attw\n${types.output}`);
    if (lint.status !== 0 || !lint.output.includes("All good!"))
      problems.push(`${name}: publint\n${lint.output}`);
  }),
);

/** Every installed package below `modules` (scoped and nested ones included) with its folder. */
const installedPackages = (modules) =>
  !existsSync(modules)
    ? []
    : readdirSync(modules, { withFileTypes: true })
        .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
        .flatMap((entry) =>
          entry.name.startsWith("@")
            ? readdirSync(join(modules, entry.name)).map((name) => join(modules, entry.name, name))
            : [join(modules, entry.name)],
        )
        .filter((dir) => existsSync(join(dir, "package.json")))
        .flatMap((dir) => [
          { dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) },
          ...installedPackages(join(dir, "node_modules")),
        ]);

// The workspace's own better-sqlite3, built when the workspace was installed.
const workspaceSqlite = () => {
  const dir = join(root, "packages", "sqlite", "node_modules", "better-sqlite3");
  const binary = join(dir, "build", "Release", "better_sqlite3.node");
  if (!existsSync(binary)) return undefined;
  return { version: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version, binary };
};

// The tarballs are installed with scripts off, then each install script runs here. better-sqlite3's
// fetches a prebuilt binary from GitHub or else compiles SQLite (about 45 s on 2 cores); when the
// workspace built the same version, the project gets that binary, which is the file the download would
// have put there. Any other install script, or another better-sqlite3 version, runs as npm would run it.
const runInstallScripts = (project) => {
  const sqlite = workspaceSqlite();
  for (const { dir, manifest } of installedPackages(join(project, "node_modules"))) {
    const scripts = manifest.scripts ?? {};
    if (!scripts.preinstall && !scripts.install && !scripts.postinstall) continue;
    if (manifest.name === "better-sqlite3" && sqlite?.version === manifest.version) {
      mkdirSync(join(dir, "build", "Release"), { recursive: true });
      cpSync(sqlite.binary, join(dir, "build", "Release", "better_sqlite3.node"));
      continue;
    }
    run("npm", ["rebuild", "--loglevel=error", manifest.name], { cwd: project });
  }
};

step("installing the tarballs with npm into a throw-away project");
const project = mkdtempSync(join(tmpdir(), "mem-smoke-"));
try {
  const sdkRange = JSON.parse(readFileSync(join(root, "packages/core/package.json"), "utf8")).devDependencies[
    "@anthropic-ai/sdk"
  ];
  writeFileSync(
    join(project, "package.json"),
    `${JSON.stringify({ name: "mem-smoke", private: true, version: "1.0.0" }, null, 2)}\n`,
  );
  run(
    "npm",
    [
      "install",
      ...SCRATCH_INSTALL_FLAGS,
      "--ignore-scripts",
      ...tarballs.map((t) => t.file),
      `@anthropic-ai/sdk@${sdkRange}`,
    ],
    { cwd: project },
  );
  runInstallScripts(project);

  // Every entry point of every public package loads both ways, with the same names.
  const entries = tarballs.flatMap(({ name, unpacked }) =>
    Object.keys(
      JSON.parse(readFileSync(join(unpacked, "package.json"), "utf8")).exports ?? { ".": null },
    ).map((subpath) => (subpath === "." ? name : `${name}/${subpath.slice(2)}`)),
  );
  writeFileSync(join(project, "entries.json"), JSON.stringify(entries));
  const smoke = join(root, "scripts", "smoke");
  for (const file of readdirSync(smoke)) writeFileSync(join(project, file), readFileSync(join(smoke, file)));

  step("type-checking the smoke files (node16, nodenext) and running them");
  // The two checks are independent (node16 emits nothing), so they run side by side, as do the two runs.
  const checks = await Promise.all(
    ["tsconfig.node16.json", "tsconfig.json"].map((config) =>
      runAsync(
        bin("tsc"),
        ["-p", join(project, config), "--typeRoots", join(root, "node_modules", "@types")],
        {
          cwd: project,
        },
      ).then((result) => ({ config, ...result })),
    ),
  );
  const failed = checks.filter(({ status }) => status !== 0);
  if (failed.length > 0) {
    throw new Error(
      failed
        .map(({ config, status, output }) => `tsc -p ${config} failed (${status}):\n${output.trim()}`)
        .join("\n"),
    );
  }
  const smokes = await Promise.all(
    ["smoke-import.mjs", "smoke-require.cjs"].map(async (file) => ({
      file,
      ...(await runAsync(process.execPath, [join(project, "out", file)], { cwd: project })),
    })),
  );
  for (const { file, status, output } of smokes) {
    if (status === 0) console.log(output.trim());
    else
      problems.push(
        `smoke ${file}\n${[process.execPath, join(project, "out", file)].join(" ")} failed (${status}):\n${output.trim()}`,
      );
  }
} catch (error) {
  problems.push(error.message);
} finally {
  rmSync(project, { recursive: true, force: true });
}

if (keep && problems.length === 0) {
  const folder = join(process.cwd(), keep);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  for (const { file } of tarballs) cpSync(file, join(folder, basename(file)));
  console.log(`pack-check: tarballs left in ${relative(root, folder) || "."}`);
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
for (const problem of problems) console.error(`pack-check: ${problem}`);
console.log(
  problems.length === 0
    ? `pack-check: ${tarballs.length} packages packed and checked in ${seconds} s`
    : `pack-check: ${problems.length} problem(s) in ${seconds} s`,
);
process.exit(problems.length === 0 ? 0 : 1);
