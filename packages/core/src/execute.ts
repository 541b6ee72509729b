import type { MemoryStore } from "./store.js";

export interface ToolResult {
  content: string;
  isError: boolean;
}

export interface ExecuteOptions {
  maxFileBytes?: number;
  viewCharLimit?: number;
  listLimit?: number;
}

export async function executeCommand(
  _store: MemoryStore,
  _input: unknown,
  _options: ExecuteOptions = {},
): Promise<ToolResult> {
  throw new Error("not implemented yet");
}
