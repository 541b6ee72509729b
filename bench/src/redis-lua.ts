/**
 * `pnpm bench:redis-lua [--base=HEAD~1] [--runs=2000] [--rounds=12]`: what the store's Lua code costs
 * inside redis-server per operation, against the code of an earlier revision, in the same server.
 *
 * One EVAL runs the code's `main` `--runs` times for one operation (a listing of `/memories` to depth 2 over
 * the load benchmark's tenant, a view of a file, an edit, a create with its delete, a rename there and
 * back), so the time is the code's and the commands it runs, without the round trip, the client or the
 * FCALL around it, which are the same for both codes. Each round times every operation once on either
 * code, in alternating order; the table gives medians (and minimums) per run and their ratio. The edit's
 * loop also reads the file's version (one HGET), on both sides.
 *
 * The earlier code comes from `git show {base}:packages/redis/src/lua/store.lua`; both must share the
 * calling convention of `main(KEYS, ARGV)` (store.lua's header).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { executeCommand } from "@mem/core";
import { RedisStore } from "@mem/redis";
import { startRedis } from "@mem/testkit";
import { Redis } from "ioredis";
import { flag } from "./flags.js";
import { median } from "./paired.js";

const BASE = flag("base") ?? "HEAD~1";
const RUNS = Number(flag("runs") ?? 2000);
const ROUNDS = Number(flag("rounds") ?? 12);

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const LUA = "packages/redis/src/lua/store.lua";

const NOTE = `${Array.from({ length: 20 }, (_, line) => `fact ${line} about the tenant: ${"lorem ipsum ".repeat(3)}`).join("\n")}\n`;
const FILES = [
  "notes/n0.md",
  "notes/n1.md",
  "notes/n2.md",
  "notes/n3.md",
  "projects/p0.md",
  "projects/p1.md",
  "scratch/a.md",
  "scratch/b.md",
];

/** The operations, as Lua run once per loop turn; `call(...)` runs main with the store's fixed arguments. */
const OPERATIONS: Array<[string, string]> = [
  ["listing of /memories (13 entries)", "call('list', '/memories', '2', '', '')"],
  ["view of a file", "call('view', '/memories/notes/n1.md', '2', '', '')"],
  [
    "edit (write with a version)",
    "call('write', '/memories/notes/n2.md', ARGV[3], redis.call('HGET', base .. 'f:/memories/notes/n2.md', 'v'), '', '')",
  ],
  [
    "create, then delete",
    "call('write', '/memories/scratch/new.md', ARGV[3], '', '', ''); call('delete', '/memories/scratch/new.md')",
  ],
  [
    "rename, then back",
    "call('rename', '/memories/scratch/a.md', '/memories/scratch/c.md'); call('rename', '/memories/scratch/c.md', '/memories/scratch/a.md')",
  ],
];

/** The code with a loop that runs `operation` ARGV[1] times for the store whose key base is ARGV[2]. */
const looped = (code: string, operation: string): string => `${code}
local base = ARGV[2]
local keys = {KEYS[1]}
local function call(...) return main(keys, {base, '0', '', ...}) end
for _ = 1, tonumber(ARGV[1]) do ${operation} end
return 1
`;

const main = async () => {
  const current = readFileSync(join(root, LUA), "utf8");
  const earlier = execFileSync("git", ["show", `${BASE}:${LUA}`], { cwd: root, encoding: "utf8" });
  const server = await startRedis();
  const client = new Redis(server.url, { maxRetriesPerRequest: 1 });
  const load = [loadavg()[0]!];
  const rows: string[] = [];
  try {
    const store = new RedisStore({ client, prefix: "lua" });
    for (const file of [...FILES, "shared/log.md"]) {
      const made = await executeCommand(store, {
        command: "create",
        path: `/memories/${file}`,
        file_text: NOTE,
      });
      if (made.isError) throw new Error(made.content);
    }
    const base = store.keyBase;
    for (const [name, operation] of OPERATIONS) {
      const shas = await Promise.all(
        [earlier, current].map((code) => client.script("LOAD", looped(code, operation)) as Promise<string>),
      );
      const times: [number[], number[]] = [[], []];
      for (let round = 0; round < ROUNDS; round++) {
        for (const side of round % 2 ? [1, 0] : [0, 1]) {
          const began = process.hrtime.bigint();
          await client.evalsha(shas[side]!, 1, `${base}seq`, String(RUNS), base, NOTE);
          times[side]!.push(Number(process.hrtime.bigint() - began) / 1000 / RUNS);
        }
      }
      const [before, after] = times.map((t) => median(t));
      const [minBefore, minAfter] = times.map((t) => Math.min(...t));
      rows.push(
        `| ${name} | ${before!.toFixed(2)} (${minBefore!.toFixed(2)}) | ${after!.toFixed(2)} (${minAfter!.toFixed(2)}) | ${(after! / before!).toFixed(2)}x |`,
      );
      load.push(loadavg()[0]!);
    }
  } finally {
    client.disconnect();
    await server.stop();
  }
  const revision = execFileSync("git", ["rev-parse", "--short", BASE], {
    cwd: root,
    encoding: "utf8",
  }).trim();
  const report = [
    "# Redis: the store's Lua code inside the server",
    "",
    "Written by `pnpm bench:redis-lua` (bench/src/redis-lua.ts, which says how it is measured): µs per",
    `operation, the code's main() run ${RUNS.toLocaleString("en-US")} times inside one EVAL, median (minimum) of ${ROUNDS} alternated rounds.`,
    `Earlier code: \`${BASE}\` (${revision}); current: the working tree. ${new Date().toISOString()}, load average ${load.map((x) => x.toFixed(1)).join(" → ")}.`,
    "",
    "| operation | earlier µs | current µs | current / earlier |",
    "|---|--:|--:|--:|",
    ...rows,
    "",
  ].join("\n");
  writeFileSync(join(root, "bench", "results", "redis-lua.md"), report);
  process.stdout.write(report);
};

await main();
