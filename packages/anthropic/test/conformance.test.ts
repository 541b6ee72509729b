import { runConformance } from "@mem/conformance";
import { afterAll, beforeAll } from "vitest";
import { AnthropicMemoryStore } from "../src/index.js";
import { type Hosted, startHosted } from "./helpers.js";

let hosted: Hosted;
beforeAll(async () => {
  hosted = await startHosted();
});
afterAll(() => hosted.server.close());

runConformance({
  name: "AnthropicMemoryStore",
  create: () => hosted.store(),
  // A second client on the same hosted store: another process, another agent.
  peer: (store) =>
    new AnthropicMemoryStore({
      client: hosted.client("other-key"),
      memoryStoreId: store.memoryStoreId,
    }),
  tenants: true,
  erasure: {
    // Everything the hosted store keeps: each memory (path and content) and each version, as the API holds it.
    dump: async (store) => {
      const hostedStore = hosted.server.model.store(store.memoryStoreId);
      return [
        ...[...hostedStore.memories.values()].map((m) => ({ key: m.path, value: m.content })),
        ...hostedStore.versions.map((v) => ({ key: v.id, value: JSON.stringify(v) })),
      ];
    },
  },
  // Played by golden.test.ts: the transcripts whose seed files a hosted store cannot hold are checked there.
  skip: ["golden", "search"],
});
