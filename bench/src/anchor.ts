/**
 * The anchor: the SDK's own `BetaLocalFilesystemMemoryTool`, its command handlers called directly.
 * A handler that throws is an error result, as the SDK's tool runner reports it.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import { type Backend, type ChildEnv, messageOf, relativeOf, type Tool, type ToolInput } from "./subject.js";

type Handler = (command: ToolInput) => Promise<string>;

export const anchorBackend = async (env: ChildEnv): Promise<Backend> => ({
  async open(ns: string): Promise<Tool> {
    const base = join(env.tmpDir, "anchor", ns);
    const tool = await BetaLocalFilesystemMemoryTool.init(base);
    const handlers = tool as unknown as Record<string, Handler | undefined>;
    return {
      async exec(input) {
        const handler = handlers[String(input["command"])];
        if (!handler) return { content: `unknown command ${String(input["command"])}`, isError: true };
        try {
          return { content: await handler.call(tool, input), isError: false };
        } catch (error) {
          return { content: messageOf(error), isError: true };
        }
      },
      async readText(path) {
        try {
          return await readFile(join(base, "memories", relativeOf(path)), "utf8");
        } catch {
          return null;
        }
      },
    };
  },
  async close() {},
});
