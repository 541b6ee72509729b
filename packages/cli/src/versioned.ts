/**
 * The version surface `mem history`, `mem restore` and the console use: `@mem/history`'s, offered by a
 * `HistoryStore` or by a store that keeps versions itself (a hosted memory store).
 */
import type { MemoryStore } from "@mem/core";
import { type HistoryStore, RedactedVersionError } from "@mem/history";

export type Versioned = Pick<HistoryStore, "versions" | "readVersion" | "restore" | "redact">;

/** True for a store with the whole version surface. */
export const hasVersions = (store: MemoryStore): store is MemoryStore & Versioned =>
  (["versions", "readVersion", "restore", "redact"] as const).every(
    (name) => typeof (store as unknown as Record<string, unknown>)[name] === "function",
  );

/** A redacted version's error, from `@mem/history` or from a store with its own (same `code`). */
export const isRedacted = (error: unknown): boolean =>
  error instanceof RedactedVersionError || (error as { code?: unknown } | null)?.code === "REDACTED";
