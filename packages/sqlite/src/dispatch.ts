/**
 * Where a store's requests go: a queue that hands everything waiting to the database as one batch as
 * soon as the previous batch is answered (group commit), over a worker thread (a store opened by path)
 * or on the calling thread (a store given the application's open database).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type Database from "better-sqlite3";
import { type ConnectionSettings, prepareConnection, runBatch } from "./batch.js";
import type { Engine } from "./engine.js";
import { reasonOf } from "./failure.js";
import { changes, type FromThread, type Reply, type Request, type ToThread } from "./protocol.js";

/** Runs one batch; resolves with one reply per request, in order. */
export interface Transport {
  run(requests: Request[]): Promise<Reply[]>;
  close(): Promise<void>;
}

interface Waiting {
  request: Request;
  resolve: (reply: Reply) => void;
}

export class Dispatcher {
  #queue: Waiting[] = [];
  #busy = false;
  #closed = false;

  constructor(readonly transport: Transport) {}

  run(request: Request): Promise<Reply> {
    if (this.#closed) {
      return Promise.resolve({
        ok: false,
        failure: { type: "failure", reason: "the store is closed", mayBeApplied: false },
      });
    }
    return new Promise((resolve) => {
      this.#queue.push({ request, resolve });
      // Requests made in the same turn join the batch; the first one never waits longer than that.
      if (!this.#busy) {
        this.#busy = true;
        queueMicrotask(() => void this.#drain());
      }
    });
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      let replies: Reply[];
      try {
        replies = await this.transport.run(batch.map((waiting) => waiting.request));
      } catch (error) {
        // The database thread died with the batch: a change may have been committed before it did.
        replies = batch.map(({ request }) => ({
          ok: false,
          failure: { type: "failure", reason: reasonOf(error), mayBeApplied: changes(request) },
        }));
      }
      for (const [i, waiting] of batch.entries()) waiting.resolve(replies[i]!);
    }
    this.#busy = false;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.transport.close();
  }
}

/**
 * The worker's entry: the built `worker.js` next to this file, or, when running from the TypeScript
 * sources (tests, `tsx`), a bootstrap that registers tsx's loader on the thread before importing them.
 */
const workerEntry = (): { entry: string | URL; eval: boolean } => {
  const built = new URL("./worker.js", import.meta.url);
  if (existsSync(fileURLToPath(built))) return { entry: built, eval: false };
  // From the sources only: a test run may bundle worker.ts once (@mem/testkit/sqlite-worker) and
  // name the bundle here, sparing every thread tsx's start-up. A build has worker.js and never looks at it.
  const bundle = process.env.MEM_SQLITE_WORKER_BUNDLE;
  if (bundle && existsSync(bundle)) return { entry: pathToFileURL(bundle), eval: false };
  const source = new URL("./worker.ts", import.meta.url).href;
  // `require` finds tsx's CommonJS API, whose register() cannot start the loader; its ES module is beside it.
  const cjs = createRequire(import.meta.url).resolve("tsx/esm/api");
  const api = pathToFileURL(cjs.replace(/\.cjs$/, ".mjs")).href;
  const code = `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`;
  return { entry: code, eval: true };
};

/** A worker thread owning the connection; started on first use and again after it dies. */
export class WorkerTransport implements Transport {
  #worker: Worker | undefined;
  #next = 0;
  readonly #pending = new Map<
    number,
    { resolve: (replies: Reply[]) => void; reject: (error: Error) => void }
  >();

  readonly #path: string;
  readonly #settings: ConnectionSettings;

  constructor(path: string, settings: ConnectionSettings) {
    this.#path = path;
    this.#settings = settings;
  }

  #start(): Worker {
    const { entry, eval: evaluated } = workerEntry();
    const worker = new Worker(entry, {
      eval: evaluated,
      workerData: { path: this.#path, settings: this.#settings },
    });
    const fail = (error: Error) => {
      if (this.#worker === worker) this.#worker = undefined;
      for (const pending of this.#pending.values()) pending.reject(error);
      this.#pending.clear();
    };
    worker.on("message", (message: FromThread) => {
      if (message.type !== "replies") return;
      const pending = this.#pending.get(message.id);
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) worker.unref();
      pending?.resolve(message.replies);
    });
    worker.on("error", fail);
    worker.on("exit", () => fail(new Error("the database thread stopped")));
    return worker;
  }

  run(requests: Request[]): Promise<Reply[]> {
    this.#worker ??= this.#start();
    const worker = this.#worker;
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.ref();
      worker.postMessage({ type: "batch", id, requests } satisfies ToThread);
    });
  }

  async close(): Promise<void> {
    const worker = this.#worker;
    if (!worker) return;
    this.#worker = undefined;
    await new Promise<void>((resolve) => {
      worker.once("exit", () => resolve());
      worker.on("message", (message: FromThread) => {
        if (message.type === "closed") void worker.terminate();
      });
      worker.ref();
      worker.postMessage({ type: "close" } satisfies ToThread);
    });
  }
}

/** The application's open database, used on the calling thread. */
export class InlineTransport implements Transport {
  #engine: Engine | undefined;

  readonly #db: Database.Database;
  readonly #settings: ConnectionSettings;

  constructor(db: Database.Database, settings: ConnectionSettings) {
    this.#db = db;
    this.#settings = settings;
  }

  async run(requests: Request[]): Promise<Reply[]> {
    try {
      this.#engine ??= prepareConnection(this.#db, this.#settings);
    } catch (error) {
      const failure = { type: "failure", reason: reasonOf(error), mayBeApplied: false } as const;
      return requests.map(() => ({ ok: false, failure }));
    }
    return runBatch(this.#db, this.#engine, requests, this.#settings);
  }

  async close(): Promise<void> {}
}
