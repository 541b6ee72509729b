// The CommonJS side of the smoke test: `require` of the ES module builds (Node >= 20.19), typed by
// TypeScript's `nodenext` resolution, runs a command through EncryptedStore and the SDK tool.
import crypto = require("node:crypto");
import core = require("@mem/core");
import anthropic = require("@mem/core/anthropic");
import encrypted = require("@mem/encrypted");

async function main(): Promise<void> {
  const inner = new core.InMemoryStore();
  const store = new encrypted.EncryptedStore(inner, { key: crypto.randomBytes(32).toString("base64") });
  const tool = anthropic.memoryTool(store);
  const created = await tool.run({ command: "create", path: "/memories/a.txt", file_text: "secret\n" });
  if (created !== "File created successfully at: /memories/a.txt") throw new Error(`require: ${created}`);
  const { content } = await core.executeCommand(store, { command: "view", path: "/memories/a.txt" });
  if (content !== "Here's the content of /memories/a.txt with line numbers:\n     1\tsecret") {
    throw new Error(`require: unexpected result ${JSON.stringify(content)}`);
  }
  const raw = await inner.read("/memories/a.txt");
  if (!raw || new TextDecoder().decode(raw.data).includes("secret"))
    throw new Error("require: stored in the clear");
  await store.close();
  console.log("require: a command ran through memoryTool on EncryptedStore");
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
