/**
 * Directory renames: each memory below the directory gets one update of its path (its id stays). A
 * journal memory (`<namespace>/.mem-renames/<id>`, a name core refuses to users) records the rename
 * before the first move and goes after the last, so a rename interrupted midway is completed by running
 * it again, or by `recover()`, with nothing lost: every memory is at its old path or its new one.
 */
import { AlreadyExistsError, NotFoundError, rebase } from "@mem/core";
import { errorObjectOf } from "./failure.js";
import { type Namespace, RENAMES_DIR } from "./paths.js";
import { type Memory, RequestFailure, type Requests } from "./requests.js";
import { sha256Hex } from "./sha.js";

export interface RenameContext {
  requests: Requests;
  ns: Namespace;
  find(path: string): Promise<{ kind: "file"; memory: Memory } | { kind: "directory" } | null>;
  below(path: string): Promise<Memory[]>;
  forget(storePath: string): void;
  remember(memory: Memory): void;
  pathConflict(path: string, storePath: string, at: string | undefined): Error;
  writeFailure(operation: string, error: unknown): Error;
}

interface Journal {
  id: string;
  from: string;
  to: string;
}

const journalDir = (ns: Namespace): string => `${ns.base}/${RENAMES_DIR}/`;

async function journals(ctx: RenameContext): Promise<Journal[]> {
  const out: Journal[] = [];
  for (const item of await ctx.requests.list(journalDir(ctx.ns), 1)) {
    if (item.type !== "memory") continue;
    const memory = await ctx.requests.read("retrieve", (o) =>
      ctx.requests.memories.retrieve(item.id, { memory_store_id: ctx.requests.storeId, view: "full" }, o),
    );
    try {
      const { from, to } = JSON.parse(memory.content ?? "") as { from?: unknown; to?: unknown };
      if (typeof from === "string" && typeof to === "string") out.push({ id: item.id, from, to });
    } catch {
      // Not a journal this store wrote: left alone.
    }
  }
  return out;
}

/** Moves every memory still below `from` to its place below `to`, then removes the journal. */
async function move(ctx: RenameContext, journal: Journal): Promise<void> {
  const { requests, ns } = ctx;
  for (const memory of await ctx.below(journal.from)) {
    const path = ns.fromStore(memory.path);
    if (path === null || ns.isBookkeeping(memory.path)) continue;
    const target = rebase(path, journal.from, journal.to);
    const targetStore = ns.toStore(target);
    try {
      const moved = await requests.send((o) =>
        requests.memories.update(memory.id, { memory_store_id: requests.storeId, path: targetStore }, o),
      );
      ctx.forget(memory.path);
      ctx.remember(moved);
    } catch (error) {
      // Moved or deleted by someone else meanwhile: nothing of ours to move.
      if (error instanceof RequestFailure && error.status === 404) continue;
      if (error instanceof RequestFailure && error.status === 409)
        throw ctx.pathConflict(target, targetStore, errorObjectOf(error.cause).conflicting_path);
      throw ctx.writeFailure("update", error);
    }
  }
  try {
    await requests.send((o) =>
      requests.memories.delete(journal.id, { memory_store_id: requests.storeId }, o),
    );
  } catch (error) {
    if (!(error instanceof RequestFailure && error.status === 404)) throw ctx.writeFailure("delete", error);
  }
}

/** Renames directory `from` to `to` (the caller checked that `from` is a directory and `to` is not inside). */
export async function renameDirectory(ctx: RenameContext, from: string, to: string): Promise<void> {
  const { requests, ns } = ctx;
  for (const journal of await journals(ctx)) {
    if (journal.from === from && journal.to === to) return move(ctx, journal);
  }
  if ((await ctx.find(to)) !== null) throw new AlreadyExistsError(to);
  const name = `${journalDir(ns)}${(await sha256Hex(`${from}\u0000${to}`)).slice(0, 32)}`;
  let journal: Journal;
  try {
    const created = await requests.send((o) =>
      requests.memories.create(requests.storeId, { path: name, content: JSON.stringify({ from, to }) }, o),
    );
    journal = { id: created.id, from, to };
  } catch (error) {
    throw ctx.writeFailure("create", error);
  }
  try {
    await move(ctx, journal);
  } catch (error) {
    // Refused before anything moved (the destination's ancestor is a file): no rename to complete.
    if (!(error instanceof NotFoundError) && (await ctx.find(to)) === null) {
      await requests
        .send((o) => requests.memories.delete(journal.id, { memory_store_id: requests.storeId }, o))
        .catch(() => {});
    }
    throw error;
  }
}

/**
 * Completes the journaled renames (only the one from `from` to `to`, when given). Resolves `true` when
 * one matching them was completed.
 */
export async function completeRenames(ctx: RenameContext, from?: string, to?: string): Promise<boolean> {
  let done = false;
  for (const journal of await journals(ctx)) {
    if (from !== undefined && (journal.from !== from || journal.to !== to)) continue;
    await move(ctx, journal);
    done = true;
  }
  return done;
}
