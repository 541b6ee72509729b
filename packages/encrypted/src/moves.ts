/**
 * The rename journal's entries. A rename records `from → to` before the inner store moves anything; until
 * every moved file is re-encrypted for its new path, a file at `to/...` that does not open at its own path
 * may open at the path it had under `from`. Entries are unique per rename, so concurrent renames never
 * clear each other's.
 */
import { isSameOrInside, rebase } from "@mem/core";

export interface Move {
  from: string;
  to: string;
  /** When the rename started (ms since the epoch, by the clock of the instance that ran it). */
  startedAt: number;
  /** The journal entry this move was read from or will be written as. */
  entry: string;
}

// Validated paths never hold control characters, so NUL separates the fields unambiguously.
const SEPARATOR = "\u0000";

export const newMove = (from: string, to: string, id: string, startedAt = Date.now()): Move => ({
  from,
  to,
  startedAt,
  entry: [to, from, id, String(startedAt)].join(SEPARATOR),
});

export const parseMove = (entry: string): Move | null => {
  const [to, from, id, started, ...rest] = entry.split(SEPARATOR);
  const startedAt = Number(started);
  return to && from && id && Number.isSafeInteger(startedAt) && rest.length === 0
    ? { from, to, startedAt, entry }
    : null;
};

/** Paths a file now at `path` may have been encrypted for, nearest rename first (chains included). */
export const formerPaths = (path: string, moves: readonly Move[]): string[] => {
  const found: string[] = [];
  const queue = [path];
  while (queue.length > 0 && found.length < 64) {
    const current = queue.shift()!;
    for (const move of moves) {
      if (!isSameOrInside(current, move.to)) continue;
      const former = rebase(current, move.to, move.from);
      if (former !== path && !found.includes(former)) {
        found.push(former);
        queue.push(former);
      }
    }
  }
  return found;
};
