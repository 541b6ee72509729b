/**
 * The in-process queue of `RedisStore.update` (see there): per client and file, the edits that arrive
 * while one is under way wait, then go together as one batch: one read, every change applied in arrival
 * order, each to the result of the one before, and one conditional write.
 */
import { applyInTurn, type BytesChange } from "@mem/core";
import type { Cluster, Redis } from "ioredis";

/** Attempts of `update` before it gives up on a file other processes keep changing. */
export const UPDATE_ATTEMPTS = 100;

export type Change = BytesChange;

/** A batch's run: applies `apply` to the file (read, then written if anything changed); false when missing. */
export type RunBatch = (apply: (current: Uint8Array) => Uint8Array | null) => Promise<boolean>;

interface Waiting {
  change: Change;
  resolve: (found: boolean) => void;
  reject: (error: unknown) => void;
  /** What its change threw, on the batch's last attempt. */
  threw?: { error: unknown } | undefined;
}

interface Queue {
  waiting: Waiting[];
}

/** Per client, the queue of each file (key base and path) while an update of it is under way. */
const queues = new WeakMap<Redis | Cluster, Map<string, Queue>>();

/**
 * Queues `change` under `key` on `client`; `run` carries out a batch (and its retries). Resolves with
 * whether the file was there; rejects with the batch's failure, or with what `change` itself threw.
 */
export const update = (
  client: Redis | Cluster,
  key: string,
  change: Change,
  run: RunBatch,
): Promise<boolean> =>
  new Promise<boolean>((resolve, reject) => {
    let byKey = queues.get(client);
    if (!byKey) {
      byKey = new Map();
      queues.set(client, byKey);
    }
    const queue = byKey.get(key);
    if (queue) {
      queue.waiting.push({ change, resolve, reject });
      return;
    }
    const own: Queue = { waiting: [{ change, resolve, reject }] };
    byKey.set(key, own);
    void drain(byKey, key, own, run);
  });

const drain = async (byKey: Map<string, Queue>, key: string, queue: Queue, run: RunBatch): Promise<void> => {
  while (queue.waiting.length > 0) {
    const batch = queue.waiting.splice(0);
    try {
      const found = await run((current) => {
        const { next, thrown } = applyInTurn(
          current,
          batch.map((item) => item.change),
        );
        batch.forEach((item, i) => {
          item.threw = thrown[i];
        });
        return next;
      });
      for (const item of batch) {
        if (item.threw) item.reject(item.threw.error);
        else item.resolve(found);
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
    }
  }
  byKey.delete(key);
};
