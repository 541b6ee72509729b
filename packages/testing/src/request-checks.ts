/**
 * The request checks of the scripted Messages API that the real API makes too and that the memory tool's
 * integration depends on: context-management edits (clearing and compaction) with their betas, and the
 * image blocks of tool results.
 */
import type { IncomingHttpHeaders } from "node:http";

/** A request the real API would refuse with `invalid_request_error`, and why. */
export class InvalidRequest extends Error {}

/** The edits the API knows, and the beta each needs besides `context-management-2025-06-27`. */
const EDITS: Record<string, string | null> = {
  clear_tool_uses_20250919: null,
  clear_thinking_20251015: null,
  compact_20260112: "compact-2026-01-12",
};
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

const betasOf = (headers: IncomingHttpHeaders): Set<string> =>
  new Set(
    String(headers["anthropic-beta"] ?? "")
      .split(",")
      .map((b) => b.trim())
      .filter((b) => b !== ""),
  );

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Throws {@link InvalidRequest} for `context_management` the API would refuse. */
export const checkContextManagement = (body: Record<string, unknown>, headers: IncomingHttpHeaders): void => {
  const config = body["context_management"];
  if (config === undefined) return;
  const betas = betasOf(headers);
  if (!betas.has("context-management-2025-06-27")) {
    throw new InvalidRequest("context_management: requires the context-management-2025-06-27 beta");
  }
  const edits = isRecord(config) ? config["edits"] : undefined;
  if (!Array.isArray(edits)) throw new InvalidRequest("context_management.edits: must be a list");
  for (const [i, edit] of edits.entries()) {
    const type = isRecord(edit) ? edit["type"] : undefined;
    if (typeof type !== "string" || !(type in EDITS)) {
      throw new InvalidRequest(`context_management.edits.${i}.type: unknown edit ${JSON.stringify(type)}`);
    }
    const beta = EDITS[type];
    if (beta && !betas.has(beta)) {
      throw new InvalidRequest(`context_management.edits.${i}: ${type} requires the ${beta} beta`);
    }
  }
};

/** Throws {@link InvalidRequest} for an image block in a tool result that the API would refuse. */
export const checkToolResultImages = (messages: readonly { content: unknown }[]): void => {
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block) || block["type"] !== "tool_result" || !Array.isArray(block["content"])) continue;
      for (const part of block["content"]) {
        if (!isRecord(part) || part["type"] !== "image") continue;
        const source = part["source"];
        const valid =
          isRecord(source) &&
          source["type"] === "base64" &&
          IMAGE_TYPES.has(String(source["media_type"])) &&
          typeof source["data"] === "string" &&
          /^[A-Za-z0-9+/]+={0,2}$/.test(source["data"]);
        if (!valid)
          throw new InvalidRequest("tool_result image: source must be base64 PNG, JPEG, GIF or WebP");
      }
    }
  }
};
