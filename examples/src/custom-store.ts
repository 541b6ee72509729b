/**
 * A store of your own behind the memory tool: src/map-store.ts gives four primitives over a `Map` and
 * `bridgeStore` builds the store on them; core does everything else (validation, the six commands, the
 * exact result strings). test/map-store.test.ts proves it with `runConformance` from @mem/conformance.
 *
 * Run: npx -y pnpm@10 --filter @mem/examples custom-store
 */
import { executeCommand } from "@mem/core";
import { createMapStore } from "./map-store.js";

const store = createMapStore();
const calls = [
  { command: "create", path: "/memories/notes.md", file_text: "# Notes\n- likes tea\n" },
  { command: "str_replace", path: "/memories/notes.md", old_str: "tea", new_str: "green tea" },
  { command: "view", path: "/memories/notes.md" },
  { command: "rename", old_path: "/memories/notes.md", new_path: "/memories/people/ada.md" },
  { command: "view", path: "/memories" },
  { command: "view", path: "/memories/../etc/passwd" },
];
for (const input of calls) {
  const { content, isError } = await executeCommand(store, input);
  console.log(`> ${JSON.stringify(input)}\n${isError ? "[error] " : ""}${content}\n`);
}
