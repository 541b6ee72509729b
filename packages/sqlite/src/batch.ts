/**
 * Group commit: every request that arrived while the previous batch ran goes into one transaction, so
 * sixteen writers pay one WAL fsync between them. Each request runs in a savepoint of its own, so one
 * that fails leaves the others' changes in place.
 */
import Database from "better-sqlite3";
import { Engine, EngineFailure } from "./engine.js";
import { isBusy, reasonOf } from "./failure.js";
import { changes, type Failure, type Reply, type Request } from "./protocol.js";
import { migrate } from "./schema.js";
import { registerSearchFunction } from "./search.js";

export interface ConnectionSettings {
  /** How long a batch waits for another connection's write lock before it fails. */
  readonly busyTimeoutMs: number;
}

/**
 * SQLite's own busy handler sleeps 1, 2, 5, 10, 15, 20, 25 ... 100 ms between tries, long next to a
 * 1-2 ms commit: it waits only briefly (for checkpoints and recovery), and taking the write lock is
 * retried here with short jittered pauses instead.
 */
const SQLITE_BUSY_MS = 5;

/**
 * Sets up a connection: WAL, full fsync at every commit, `secure_delete` (every byte a change frees is
 * zeroed, so no earlier content outlives its row: a purge then leaves nothing of the tenant in the file),
 * the busy timeout, and the schema.
 */
export const prepareConnection = (db: Database.Database, settings: ConnectionSettings): Engine => {
  // Setting up waits the whole timeout: converting a new file to WAL and creating the schema take locks
  // that every connection opening the file at the same moment asks for. SQLite answers some of those
  // waits with SQLITE_BUSY at once, without its busy handler (switching a new file to WAL, a read while
  // another connection recovers the WAL index), so the whole set-up is tried again until the deadline.
  const deadline = Date.now() + settings.busyTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      db.pragma(`busy_timeout = ${Math.floor(settings.busyTimeoutMs)}`);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = FULL");
      db.pragma("secure_delete = ON");
      registerSearchFunction(db);
      migrate(db);
      break;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) throw error;
      pause(Math.random() * Math.min(50, 2 ** attempt));
    }
  }
  db.pragma(`busy_timeout = ${Math.min(SQLITE_BUSY_MS, Math.floor(settings.busyTimeoutMs))}`);
  return new Engine(db);
};

export const openConnection = (path: string, settings: ConnectionSettings): Engine => {
  const db = new Database(path);
  try {
    return prepareConnection(db, settings);
  } catch (error) {
    db.close();
    throw error;
  }
};

const failed = (error: unknown, mayBeApplied = false): Failure => ({
  type: "failure",
  reason: reasonOf(error),
  mayBeApplied,
});

/** Blocks this thread for `ms`; only ever called on the database thread or while SQLite would block anyway. */
const pause = (ms: number): void => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
};

/**
 * Runs `requests` in one transaction (a write transaction when any of them changes something) and
 * answers each. When another connection keeps the database busy (the write lock taken, a checkpoint or a
 * recovery under way), the whole batch is rolled back and run again after a short jittered pause, until
 * `busyTimeoutMs` has passed.
 */
export const runBatch = (
  db: Database.Database,
  engine: Engine,
  requests: readonly Request[],
  settings: ConnectionSettings,
): Reply[] => {
  const writing = requests.some(changes);
  const deadline = Date.now() + settings.busyTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return attemptBatch(db, engine, requests, writing);
    } catch (error) {
      if (db.inTransaction) {
        try {
          db.exec("ROLLBACK");
        } catch {
          // The connection is unusable; the next batch reports its own failure.
        }
      }
      if (!isBusy(error) || Date.now() >= deadline) {
        return requests.map(() => ({ ok: false, failure: failed(error) }));
      }
      pause(Math.random() * Math.min(10, 0.5 * 2 ** attempt));
    }
  }
};

const attemptBatch = (
  db: Database.Database,
  engine: Engine,
  requests: readonly Request[],
  writing: boolean,
): Reply[] => {
  db.exec(writing ? "BEGIN IMMEDIATE" : "BEGIN");
  const replies = requests.map((request) => runOne(db, engine, request, writing));
  db.exec("COMMIT");
  return replies;
};

const runOne = (db: Database.Database, engine: Engine, request: Request, writing: boolean): Reply => {
  if (writing) db.exec("SAVEPOINT request");
  try {
    const value = engine.run(request);
    if (writing) db.exec("RELEASE request");
    return { ok: true, value };
  } catch (error) {
    // A busy database or a failure that ended the transaction fails the batch (retried when busy).
    if (isBusy(error) || !db.inTransaction) throw error;
    if (writing) {
      db.exec("ROLLBACK TO request");
      db.exec("RELEASE request");
    }
    if (error instanceof EngineFailure) return { ok: false, failure: error.failure };
    return { ok: false, failure: failed(error) };
  }
};
