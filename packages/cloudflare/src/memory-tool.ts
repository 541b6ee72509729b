/** The memory tool for a Worker's own agent loop, on a tenant's Durable Object. */
import {
  type ExecuteOptions,
  type ToolResult,
  type ToolResultContentBlock,
  toolResultContent,
} from "@mem/core";
import { DurableObjectStore, type DurableObjectStoreOptions } from "./durable-object-store.js";

/** What `memoryTool` gives: the tool's definition for a request, and how to answer its `tool_use` blocks. */
export interface CloudflareMemoryTool {
  /** `{ type: "memory_20250818", name: "memory" }`, for the request's `tools`. */
  readonly definition: { readonly type: "memory_20250818"; readonly name: "memory" };
  /** The tenant's store (for `view` before a conversation, `purge()` on erasure...). */
  readonly store: DurableObjectStore;
  /** Runs one call: one RPC to the tenant's object. Never throws for any input or storage failure. */
  run(input: unknown): Promise<ToolResult>;
  /** A `tool_use` block's `tool_result` block. */
  handle(block: { id: string; input: unknown }): Promise<{
    type: "tool_result";
    tool_use_id: string;
    content: string | ToolResultContentBlock[];
    is_error: boolean;
  }>;
}

/**
 * The memory tool of one tenant, for a Worker: `memoryTool(env.MEMORY, tenant)`. Every call runs inside
 * the tenant's `MemoryObject` in one RPC. `options` holds the store's options and `executeCommand`'s,
 * which go with each call.
 *
 * @example
 * ```ts
 * import { memoryTool } from "@mem/cloudflare";
 *
 * declare const env: { MEMORY: DurableObjectNamespace };
 * const tool = memoryTool(env.MEMORY, "user-42", { maxFiles: 200 });
 * const result = await tool.run({ command: "view", path: "/memories" });
 * ```
 */
export function memoryTool(
  namespace: unknown,
  tenant: string,
  options: DurableObjectStoreOptions & ExecuteOptions = {},
): CloudflareMemoryTool {
  const { binding, name, expireAfterSeconds, clock, ...execute } = options;
  const storeOptions: DurableObjectStoreOptions = {
    ...(binding === undefined ? {} : { binding }),
    ...(name === undefined ? {} : { name }),
    ...(expireAfterSeconds === undefined ? {} : { expireAfterSeconds }),
    ...(clock === undefined ? {} : { clock }),
  };
  const store = new DurableObjectStore(namespace, storeOptions).scope(tenant);
  const run = (input: unknown): Promise<ToolResult> => store.execute(input, execute);
  return {
    definition: { type: "memory_20250818", name: "memory" },
    store,
    run,
    async handle(block) {
      const result = await run(block.input);
      return {
        type: "tool_result",
        tool_use_id: block.id,
        content: toolResultContent(result),
        is_error: result.isError,
      };
    },
  };
}
