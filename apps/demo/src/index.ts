export {
  type Conversation,
  type ReceivedRequest,
  type ScriptedApi,
  type ScriptedApiOptions,
  type ScriptedModel,
  startScriptedApi,
} from "@mem/testkit";
export { type CliOptions, DEFAULT_MODEL, DEFAULT_STORE, parseCli, USAGE, UsageError } from "./cli.js";
export { DemoError, type DemoOptions, type DemoResult, memoryFiles, runDemo } from "./demo.js";
export { INITIAL_NOTES, NOTES_PATH, SESSIONS, scriptedClaude } from "./scenario.js";
export { runSession, type SessionTranscript, type ToolCall } from "./session.js";
