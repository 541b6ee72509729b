/**
 * The scripted Messages API of `@mem/testing` under the names the repository's tests and demo use:
 * `startScriptedApi({ model })` gives `{ baseURL, received, close }`.
 */
import { type ReceivedRequest, type ScriptedModel, startScriptedMessagesApi } from "@mem/testing";

export type {
  Block,
  Conversation,
  Message,
  ReceivedRequest,
  ScriptedBlock,
  ScriptedModel,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from "@mem/testing";

export interface ScriptedApiOptions {
  model: ScriptedModel;
  /** Pause between streamed chunks, so that a terminal shows the text arriving. Default 0. */
  chunkDelayMs?: number;
}

export interface ScriptedApi {
  /** `http://127.0.0.1:{port}`: pass it to the client as `baseURL`. */
  baseURL: string;
  /** Every request in arrival order. */
  received: ReceivedRequest[];
  close(): Promise<void>;
}

/** Starts `@mem/testing`'s server playing `options.model`. */
export const startScriptedApi = async (options: ScriptedApiOptions): Promise<ScriptedApi> => {
  const api = await startScriptedMessagesApi(options.model, {
    ...(options.chunkDelayMs !== undefined && { chunkDelayMs: options.chunkDelayMs }),
  });
  return { baseURL: api.url, received: api.requests, close: () => api.close() };
};
