/** The Messages API's shapes the scripted server reads and writes. */
import type { IncomingHttpHeaders } from "node:http";

export interface TextBlock {
  type: "text";
  text: string;
}
export interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}
/** A block of a tool result's content: text or an image. */
export interface ContentBlock {
  type: string;
  text?: string;
  source?: unknown;
}
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
}
export type Block = TextBlock | ToolUseBlock | ToolResultBlock | { type: string };

export interface Message {
  role: "user" | "assistant";
  content: string | Block[];
}

/** Everything the model sees for one turn: the whole conversation, threads resolved. */
export interface Conversation {
  system: unknown;
  tools: unknown[];
  messages: Message[];
}

/** A block of a scripted reply. Tool use ids are assigned by the server (`toolu_demo_001`, ...). */
export type ScriptedBlock = TextBlock | Omit<ToolUseBlock, "id">;

/** Decides the next assistant turn from the conversation so far. */
export type ScriptedModel = (conversation: Conversation) => ScriptedBlock[];

/** One turn of Claude: its blocks, or a function of the conversation that gives them. */
export type ScriptedTurn = readonly ScriptedBlock[] | ScriptedModel;

/**
 * What the server plays: Claude's turns in order (the n-th reply of a conversation is turn n), or a
 * {@link ScriptedModel} that decides every turn.
 */
export type Script = readonly ScriptedTurn[] | ScriptedModel;

/** One request as the server received it. */
export interface ReceivedRequest {
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}
