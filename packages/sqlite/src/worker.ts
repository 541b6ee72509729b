/**
 * The database thread of a `SqliteStore` opened by path: it owns the connection, so neither SQLite's
 * fsyncs nor its waits for another process's lock ever hold the application's event loop. Batches
 * arrive one at a time (the store sends the next when this one is answered).
 */
import { parentPort, workerData } from "node:worker_threads";
import type Database from "better-sqlite3";
import { type ConnectionSettings, openConnection, runBatch } from "./batch.js";
import type { Engine } from "./engine.js";
import { reasonOf } from "./failure.js";
import type { FromThread, Reply, ToThread } from "./protocol.js";

const { path, settings } = workerData as { path: string; settings: ConnectionSettings };
let open: { db: Database.Database; engine: Engine } | undefined;

const port = parentPort;
if (!port) throw new Error("worker.ts runs only as a worker thread");

const send = (message: FromThread): void => port.postMessage(message);

port.on("message", (message: ToThread) => {
  if (message.type === "close") {
    open?.db.close();
    open = undefined;
    send({ type: "closed" });
    return;
  }
  if (!open) {
    try {
      const engine = openConnection(path, settings);
      open = { db: engine.db, engine };
    } catch (error) {
      const failure = { type: "failure", reason: reasonOf(error), mayBeApplied: false } as const;
      send({
        type: "replies",
        id: message.id,
        replies: message.requests.map(() => ({ ok: false, failure })),
      });
      return;
    }
  }
  const replies = runBatch(open.db, open.engine, message.requests, settings);
  port.postMessage({ type: "replies", id: message.id, replies } satisfies FromThread, handedOver(replies));
});

/** Files below this size are copied to the store's thread; larger ones have their memory handed over. */
const HAND_OVER_BYTES = 64 * 1024;

/**
 * The memory of the files read in `replies`, to be moved to the store's thread rather than copied (a
 * 6 MB file read per `view_range` window would otherwise be copied twice more). Only a buffer the file
 * has to itself is moved: better-sqlite3 gives each BLOB one of its own.
 */
const handedOver = (replies: readonly Reply[]): ArrayBuffer[] => {
  const moved: ArrayBuffer[] = [];
  for (const reply of replies) {
    if (!reply.ok || typeof reply.value !== "object" || reply.value === null) continue;
    const value = reply.value as { data?: unknown; kind?: unknown; file?: { data?: unknown } };
    const data = value.kind === "file" ? value.file?.data : value.data;
    if (!(data instanceof Uint8Array) || data.byteLength < HAND_OVER_BYTES) continue;
    const { buffer } = data;
    if (buffer instanceof ArrayBuffer && data.byteOffset === 0 && data.byteLength === buffer.byteLength) {
      if (!moved.includes(buffer)) moved.push(buffer);
    }
  }
  return moved;
};
