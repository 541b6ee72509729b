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

/** Sets up a connection: WAL, full fsync at every commit, the busy timeout, and the schema. */
export const prepareConnection = (db: Database.Database, settings: ConnectionSettings): Engine => {
  db.pragma(`busy_timeout = ${Math.min(SQLITE_BUSY_MS, Math.floor(settings.busyTimeoutMs))}`);
  // A database another process is converting answers BUSY; the busy timeout covers the wait.
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  migrate(db);
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
 * answers each. Taking the write lock is retried with backoff when other processes keep it busy.
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
      db.exec(writing ? "BEGIN IMMEDIATE" : "BEGIN");
      break;
    } catch (error) {
      if (!isBusy(error) || Date.now() >= deadline) {
        return requests.map(() => ({ ok: false, failure: failed(error) }));
      }
      pause(Math.random() * Math.min(10, 0.5 * 2 ** attempt));
    }
  }
  const replies: Reply[] = [];
  try {
    for (const request of requests) replies.push(runOne(db, engine, request, writing));
    db.exec("COMMIT");
    return replies;
  } catch (error) {
    if (db.inTransaction) {
      try {
        db.exec("ROLLBACK");
      } catch {
        // The connection is unusable; the next batch reports its own failure.
      }
    }
    return requests.map(() => ({ ok: false, failure: failed(error) }));
  }
};

const runOne = (db: Database.Database, engine: Engine, request: Request, writing: boolean): Reply => {
  if (writing) db.exec("SAVEPOINT request");
  try {
    const value = engine.run(request);
    if (writing) db.exec("RELEASE request");
    return { ok: true, value };
  } catch (error) {
    if (writing) {
      db.exec("ROLLBACK TO request");
      db.exec("RELEASE request");
    }
    if (error instanceof EngineFailure) return { ok: false, failure: error.failure };
    // A disk or lock failure inside a statement spoils the whole transaction: let the batch fail.
    if ((error as { code?: unknown }).code !== undefined && !db.inTransaction) throw error;
    return { ok: false, failure: failed(error) };
  }
};
