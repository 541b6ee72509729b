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
import type { FromThread, ToThread } from "./protocol.js";

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
  send({
    type: "replies",
    id: message.id,
    replies: runBatch(open.db, open.engine, message.requests, settings),
  });
});
