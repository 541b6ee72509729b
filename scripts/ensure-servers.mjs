#!/usr/bin/env node
// Makes sure the servers the adapter tests start are installed before the tests run, because those tests
// use real servers and fail (never skip) without them: `redis-server` and `redis-cli` for @mem/redis,
// PostgreSQL's `initdb` and `postgres` for @mem/postgres, and a Ceph monitor, OSD and RADOS Gateway for
// @mem/s3's tests on a real S3 server, and Debian's chromium for the console's browser tests (@mem/cli's
// `mem serve`; playwright-core drives it, and no browser is ever downloaded). As root on a system with apt-get, installs the
// missing Debian packages; otherwise explains what to install and exits 1.
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";

const isExecutable = (file) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

const onPath = (binary) => {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && isExecutable(join(dir, binary))) return join(dir, binary);
  }
  return undefined;
};

// Debian keeps PostgreSQL's server binaries off PATH, under /usr/lib/postgresql/<version>/bin; the
// testkit looks there first, then on PATH (as installed by Homebrew or from source).
const postgresBinDir = () => {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    for (const version of readdirSync(root).sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))) {
      const dir = join(root, version, "bin");
      if (isExecutable(join(dir, "initdb")) && isExecutable(join(dir, "postgres"))) return dir;
    }
  }
  const initdb = onPath("initdb");
  const postgres = onPath("postgres");
  return initdb && postgres ? initdb.slice(0, initdb.lastIndexOf("/")) : undefined;
};

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
// PostgreSQL refuses to run as root: as root, the testkit runs it as the `postgres` system user.
const hasPostgresUser = () =>
  readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .some((line) => line.startsWith("postgres:"));

const SERVERS = [
  {
    name: "Redis",
    debianPackages: ["redis-server"],
    missing: () => ["redis-server", "redis-cli"].filter((binary) => !onPath(binary)),
    found: () => `${onPath("redis-server")} and ${onPath("redis-cli")}`,
    hints: [
      "  Debian/Ubuntu: sudo apt-get install -y redis-server",
      "  macOS:         brew install redis",
      "  Fedora:        sudo dnf install -y redis",
    ],
  },
  {
    name: "PostgreSQL",
    debianPackages: ["postgresql"],
    missing: () => {
      const absent = postgresBinDir() ? [] : ["initdb and postgres (/usr/lib/postgresql/*/bin or PATH)"];
      if (isRoot && !hasPostgresUser()) absent.push("the postgres system user (the server refuses root)");
      return absent;
    },
    found: () => `initdb and postgres in ${postgresBinDir()}`,
    hints: [
      "  Debian/Ubuntu: sudo apt-get install -y --no-install-recommends postgresql",
      "  macOS:         brew install postgresql",
      "  Fedora:        sudo dnf install -y postgresql-server",
    ],
  },
  {
    name: "Ceph RGW",
    debianPackages: ["radosgw", "ceph-mon", "ceph-osd", "ceph-common"],
    missing: () =>
      ["ceph-mon", "ceph-osd", "radosgw", "radosgw-admin", "ceph", "monmaptool"].filter(
        (binary) => !onPath(binary),
      ),
    found: () => `${onPath("radosgw")}, ${onPath("ceph-mon")} and ${onPath("ceph-osd")}`,
    hints: [
      "  Debian/Ubuntu: sudo apt-get install -y --no-install-recommends radosgw ceph-mon ceph-osd ceph-common",
    ],
  },
  {
    name: "Chromium",
    debianPackages: ["chromium"],
    // The path the console's tests launch (MEM_CHROMIUM overrides it, as in packages/testkit/src/chromium.ts).
    missing: () => [process.env.MEM_CHROMIUM ?? "/usr/bin/chromium"].filter((file) => !isExecutable(file)),
    found: () => process.env.MEM_CHROMIUM ?? "/usr/bin/chromium",
    hints: [
      "  Debian/Ubuntu: sudo apt-get install -y --no-install-recommends chromium",
      "  elsewhere:     set MEM_CHROMIUM to a Chromium or Chrome executable",
    ],
  },
];

const fail = (lines) => {
  const bar = "!".repeat(78);
  console.error(`\n${bar}\n${lines.map((line) => `!! ${line}`).join("\n")}\n${bar}\n`);
  process.exit(1);
};

const run = (command, args) => {
  console.error(`ensure-servers: running ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (result.error) return `${command} could not run: ${result.error.message}`;
  if (result.status !== 0) return `${command} ${args.join(" ")} exited with status ${result.status}`;
  return undefined;
};

const absent = SERVERS.filter((server) => server.missing().length > 0);
for (const server of SERVERS) {
  if (!absent.includes(server)) console.log(`ensure-servers: ${server.name}: found ${server.found()}`);
}
if (absent.length === 0) process.exit(0);

const aptGet = onPath("apt-get");
if (!isRoot || !aptGet) {
  fail(
    absent.flatMap((server) => [
      `${server.name.toUpperCase()} IS NOT INSTALLED: missing ${server.missing().join(", ")}.`,
      `The tests start real ${server.name} servers and cannot run without them. Install it, then run the tests again:`,
      ...server.hints,
    ]),
  );
}

const packages = absent.flatMap((server) => server.debianPackages);
const problem =
  run(aptGet, ["update"]) ?? run(aptGet, ["install", "-y", "--no-install-recommends", ...packages]);
const still = absent.filter((server) => server.missing().length > 0);
if (problem || still.length > 0) {
  fail([
    `${absent.map((server) => server.name).join(" and ")} COULD NOT BE INSTALLED AUTOMATICALLY.`,
    ...(problem ? [problem] : []),
    ...still.map((server) => `${server.name}: still missing ${server.missing().join(", ")}`),
    `Install ${packages.join(" and ")} by hand and run the tests again.`,
  ]);
}
for (const server of absent) console.log(`ensure-servers: ${server.name}: installed ${server.found()}`);
