import { fileURLToPath } from "node:url";
import { createContext, runInContext } from "node:vm";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

// Core is pure text logic: bundled for the browser it resolves no Node module, and it runs a command in
// a context that has only the web globals it needs (no `process`, `Buffer` or `require`).
describe("core in a browser bundle", () => {
  it("bundles for the browser platform and runs a command without Node globals", async () => {
    const bundle = await build({
      entryPoints: [fileURLToPath(new URL("../src/index.ts", import.meta.url))],
      bundle: true,
      platform: "browser",
      format: "iife",
      globalName: "memCore",
      target: "es2022",
      write: false,
      logLevel: "silent",
      metafile: true,
    });
    const inputs = Object.keys(bundle.metafile.inputs);
    expect(inputs.some((input) => input.startsWith("node:"))).toBe(false);

    const context = createContext({ TextEncoder, TextDecoder, setTimeout, clearTimeout });
    expect(runInContext("typeof process + typeof Buffer + typeof require", context)).toBe(
      "undefinedundefinedundefined",
    );
    runInContext(bundle.outputFiles[0]!.text, context);
    const content = await runInContext(
      `(async () => {
        const store = new memCore.InMemoryStore();
        await memCore.executeCommand(store, { command: "create", path: "/memories/a.txt", file_text: "héllo\\nwörld\\n" });
        await memCore.executeCommand(store, { command: "str_replace", path: "/memories/a.txt", old_str: "wörld", new_str: "world" });
        return (await memCore.executeCommand(store, { command: "view", path: "/memories/a.txt" })).content;
      })()`,
      context,
    );
    expect(content).toBe(
      "Here's the content of /memories/a.txt with line numbers:\n     1\théllo\n     2\tworld",
    );
  });
});
