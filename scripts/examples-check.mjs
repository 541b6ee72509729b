#!/usr/bin/env node
// Runs the packages' examples as a user would, from the release tarballs: for each package with examples
// (`packages/<name>/examples/<example>.ts` beside the `<example>.out` it must print), a throw-away npm
// project installs the tarballs of the `@mem/*` packages the examples import (and theirs), the other
// packages they import and tsx, with a plain `npm install`, then runs each example with tsx on this Node
// and compares what it prints with the `.out` file, byte for byte.
//
// A third-party package is installed at the first alternative of the example package's peer range for it
// (`^6.0.326 || ^7.0.173` installs `ai@^6.0.326`): the oldest line the package supports, which runs on
// the oldest Node the project supports. Without a peer range, at the package's development version.
//
// `--tarballs <dir>`: the folder `pack-check.mjs --out <dir>` left (default `.tmp/release`).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { root, SCRATCH_INSTALL_FLAGS, workspacePackages } from "./workspace.mjs";

const started = Date.now();
const problems = [];
const at = process.argv.indexOf("--tarballs");
const tarballs = join(process.cwd(), at === -1 ? ".tmp/release" : (process.argv[at + 1] ?? ""));
const packages = new Map(workspacePackages().map((p) => [p.manifest.name, p]));
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

const run = (command, args, options) => {
  const result = spawnSync(command, args, { encoding: "utf8", ...options });
  if (result.status !== 0) {
    throw new Error(
      `${[command, ...args].join(" ")} failed (${result.status ?? result.signal}):\n${result.stdout ?? ""}${result.stderr ?? ""}`.trim(),
    );
  }
  return result.stdout;
};

/** The package a bare import specifier names (`@scope/name/sub` is `@scope/name`); none for node: and relative ones. */
const packageOf = (specifier) => {
  if (specifier.startsWith(".") || specifier.startsWith("node:")) return undefined;
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
};

const importsOf = (file) =>
  [...readFileSync(file, "utf8").matchAll(/^import\s[^"']*["']([^"']+)["']/gm)]
    .map((match) => packageOf(match[1]))
    .filter((name) => name !== undefined);

/** The workspace packages `names` need, themselves included: their `@mem/*` dependencies, transitively. */
const withMemDependencies = (names) => {
  const out = new Set();
  const visit = (name) => {
    if (out.has(name)) return;
    out.add(name);
    for (const dependency of Object.keys(packages.get(name)?.manifest.dependencies ?? {})) {
      if (dependency.startsWith("@mem/")) visit(dependency);
    }
  };
  for (const name of names) visit(name);
  return [...out];
};

const tarballOf = (name) => {
  const { manifest } = packages.get(name) ?? {};
  if (!manifest) throw new Error(`${name} is not a package of the workspace`);
  if (manifest.private) throw new Error(`${name} is private: an example may only import released packages`);
  const file = join(tarballs, `${name.slice(1).replace("/", "-")}-${manifest.version}.tgz`);
  if (!existsSync(file)) throw new Error(`no tarball ${basename(file)} in ${tarballs}`);
  return file;
};

/** The version to install of a third-party package an example of `manifest` imports. */
const versionFor = (manifest, name) => {
  const peer = manifest.peerDependencies?.[name];
  if (peer) return peer.split("||")[0].trim();
  const dev = manifest.devDependencies?.[name] ?? manifest.dependencies?.[name];
  if (!dev) throw new Error(`${manifest.name}: an example imports ${name}, which the package does not list`);
  return dev;
};

let ran = 0;
for (const { dir, manifest } of packages.values()) {
  const folder = join(root, dir, "examples");
  if (!existsSync(folder)) continue;
  const examples = readdirSync(folder)
    .filter((file) => file.endsWith(".ts") && existsSync(join(folder, file.replace(/\.ts$/, ".out"))))
    .sort();
  if (examples.length === 0) continue;

  const imported = [...new Set(examples.flatMap((file) => importsOf(join(folder, file))))];
  const mem = withMemDependencies(imported.filter((name) => name.startsWith("@mem/")));
  const others = imported.filter((name) => !name.startsWith("@mem/"));
  const project = mkdtempSync(join(tmpdir(), "mem-examples-"));
  try {
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "mem-examples", private: true, version: "1.0.0", type: "module" }, null, 2)}\n`,
    );
    const specs = [
      ...mem.map(tarballOf),
      ...others.map((name) => `${name}@${versionFor(manifest, name)}`),
      `tsx@${rootManifest.devDependencies.tsx}`,
    ];
    run("npm", ["install", ...SCRATCH_INSTALL_FLAGS, ...specs], { cwd: project });
    const installed = others.map((name) => {
      const { version } = JSON.parse(
        readFileSync(join(project, "node_modules", name, "package.json"), "utf8"),
      );
      return `${name}@${version}`;
    });
    for (const file of examples) {
      writeFileSync(join(project, file), readFileSync(join(folder, file)));
      const expected = readFileSync(join(folder, file.replace(/\.ts$/, ".out")), "utf8");
      const output = run(join(project, "node_modules", ".bin", "tsx"), [file], {
        cwd: project,
        timeout: 120_000,
      });
      if (output === expected) {
        ran += 1;
        console.log(
          `examples-check: ${dir}/examples/${file} (${installed.join(", ")}, Node ${process.versions.node})`,
        );
      } else {
        problems.push(`${dir}/examples/${file} printed:\n${output}\ninstead of:\n${expected}`);
      }
    }
  } catch (error) {
    problems.push(`${dir}: ${error.message}`);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

const seconds = ((Date.now() - started) / 1000).toFixed(1);
for (const problem of problems) console.error(`examples-check: ${problem}`);
console.log(
  problems.length === 0
    ? `examples-check: ${ran} examples ran from the tarballs as printed in ${seconds} s`
    : `examples-check: ${problems.length} problem(s) in ${seconds} s`,
);
process.exit(problems.length === 0 && ran > 0 ? 0 : 1);
