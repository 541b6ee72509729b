#!/usr/bin/env node
// Makes sure `redis-server` and `redis-cli` are on PATH before the tests run, because the Redis adapter
// is tested against real servers and its tests fail (never skip) without them. As root on a system with
// apt-get, installs Debian's redis-server package; otherwise explains what to install and exits 1.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

const REQUIRED = ["redis-server", "redis-cli"];

const onPath = (binary) => {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, binary), constants.X_OK);
      return join(dir, binary);
    } catch {
      // not in this directory
    }
  }
  return undefined;
};

const missing = () => REQUIRED.filter((binary) => !onPath(binary));

const fail = (lines) => {
  const bar = "!".repeat(78);
  console.error(`\n${bar}\n${lines.map((line) => `!! ${line}`).join("\n")}\n${bar}\n`);
  process.exit(1);
};

const run = (command, args) => {
  console.error(`ensure-redis: running ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (result.error) return `${command} could not run: ${result.error.message}`;
  if (result.status !== 0) return `${command} ${args.join(" ")} exited with status ${result.status}`;
  return undefined;
};

let absent = missing();
if (absent.length === 0) {
  console.log(`ensure-redis: found ${REQUIRED.map(onPath).join(" and ")}`);
  process.exit(0);
}

const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
const aptGet = onPath("apt-get");
if (!isRoot || !aptGet) {
  fail([
    `REDIS IS NOT INSTALLED: ${absent.join(" and ")} not found on PATH.`,
    "The @mem/redis tests start real Redis servers and cannot run without them.",
    "Install Redis, then run the tests again:",
    "  Debian/Ubuntu: sudo apt-get install -y redis-server",
    "  macOS:         brew install redis",
    "  Fedora:        sudo dnf install -y redis",
  ]);
}

const problem = run(aptGet, ["update"]) ?? run(aptGet, ["install", "-y", "redis-server"]);
absent = missing();
if (problem || absent.length > 0) {
  fail([
    "REDIS COULD NOT BE INSTALLED AUTOMATICALLY.",
    ...(problem ? [problem] : []),
    ...(absent.length > 0 ? [`still missing on PATH: ${absent.join(" and ")}`] : []),
    "Install redis-server (it provides redis-cli) by hand and run the tests again.",
  ]);
}
console.log(`ensure-redis: installed ${REQUIRED.map(onPath).join(" and ")}`);
