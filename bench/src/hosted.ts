/**
 * `pnpm --filter @mem/bench bench:hosted [--quick]`: AnthropicMemoryStore against the scripted Memory
 * Stores API (@mem/testing) over loopback HTTP. For each tool command: the requests it sends (counted by
 * the server) and its median time, beside the baseline of the same number of bare SDK calls made in the
 * same process (so the ratio is the store's own overhead over the HTTP round trips it cannot avoid).
 * Reported, never asserted; writes results/hosted.md (or results/hosted-quick.md).
 */
import { writeFileSync } from "node:fs";
import Anthropic from "@anthropic-ai/sdk";
import { AnthropicMemoryStore } from "@mem/anthropic";
import { executeCommand } from "@mem/core";
import { startScriptedMemoryStores } from "@mem/testing/memory-stores";

const quick = process.argv.includes("--quick");
const runs = quick ? 20 : 200;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const main = async () => {
  const server = await startScriptedMemoryStores();
  const client = new Anthropic({ apiKey: "bench", baseURL: server.url, maxRetries: 0 });
  const memoryStoreId = server.createStore("bench");
  const store = new AnthropicMemoryStore({ client, memoryStoreId });
  const rows: string[] = [];
  try {
    for (let i = 0; i < 20; i++)
      await executeCommand(store, {
        command: "create",
        path: `/memories/dir/f${i}.md`,
        file_text: `line ${i}\n`,
      });
    await executeCommand(store, { command: "view", path: "/memories/dir/f0.md" });
    const baseline = await client.beta.memoryStores.memories.create(memoryStoreId, {
      path: "/baseline",
      content: "x",
    });

    const cases: Array<[string, (i: number) => Record<string, unknown>]> = [
      ["view of a file (id cached)", () => ({ command: "view", path: "/memories/dir/f0.md" })],
      ["view of a directory (20 files)", () => ({ command: "view", path: "/memories/dir" })],
      ["create", (i) => ({ command: "create", path: `/memories/new/n${i}.md`, file_text: "new\n" })],
      [
        "str_replace",
        (i) => ({
          command: "str_replace",
          path: "/memories/dir/f1.md",
          old_str: `${i % 2 ? "b" : "line"}`,
          new_str: `${i % 2 ? "line" : "b"}`,
        }),
      ],
      [
        "insert",
        (i) => ({ command: "insert", path: "/memories/dir/f2.md", insert_line: 0, insert_text: `${i}` }),
      ],
      [
        "rename of a file",
        (i) => ({
          command: "rename",
          old_path: `/memories/dir/f3${i % 2 ? "b" : ""}.md`,
          new_path: `/memories/dir/f3${i % 2 ? "" : "b"}.md`,
        }),
      ],
    ];
    for (const [name, input] of cases) {
      const times: number[] = [];
      const base: number[] = [];
      let requests = 0;
      // Warm-up, then ours and the baseline interleaved, so drift in the machine's load hits both alike.
      for (let i = -20; i < runs; i++) {
        const before = server.requests.length;
        let started = performance.now();
        const result = await executeCommand(store, input(i + 20));
        const took = performance.now() - started;
        if (result.isError) throw new Error(`${name}: ${result.content}`);
        requests = server.requests.length - before;
        // The same number of bare SDK retrieves: the round trips alone.
        started = performance.now();
        for (let r = 0; r < requests; r++)
          await client.beta.memoryStores.memories.retrieve(baseline.id, { memory_store_id: memoryStoreId });
        if (i >= 0) {
          base.push(performance.now() - started);
          times.push(took);
        }
      }
      const ours = median(times);
      const floor = median(base);
      rows.push(
        `| ${name} | ${requests} | ${ours.toFixed(2)} | ${floor.toFixed(2)} | ${(ours / floor).toFixed(2)} |`,
      );
    }
  } finally {
    await server.close();
  }
  const report = [
    `# AnthropicMemoryStore on the scripted Memory Stores API (${runs} runs per command)`,
    "",
    "| command | requests | median ms | bare SDK calls, same count, ms | ratio |",
    "|---|---|---|---|---|",
    ...rows,
    "",
  ].join("\n");
  writeFileSync(new URL(`../results/hosted${quick ? "-quick" : ""}.md`, import.meta.url), report);
  process.stdout.write(report);
};

await main();
