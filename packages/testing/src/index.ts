export { memoryScript, text, toolUse } from "./script.js";
export {
  type ScriptedMessagesApi,
  type ScriptedMessagesApiOptions,
  startScriptedMessagesApi,
} from "./scripted-messages-api.js";
export { receivedToolResults, toolResult, toolResults, toolUseId } from "./tool-results.js";
export type {
  Block,
  ContentBlock,
  Conversation,
  Message,
  ReceivedRequest,
  Script,
  ScriptedBlock,
  ScriptedModel,
  ScriptedTurn,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "./types.js";
