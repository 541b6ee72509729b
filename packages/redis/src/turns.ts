/** The in-process queue that lets `RedisStore.update` calls on one file take turns (see there). */
import type { Cluster, Redis } from "ioredis";

/** Attempts of `update` before it gives up on a file other processes keep changing. */
export const UPDATE_ATTEMPTS = 100;

/** Per client, the last queued `update` of each file (key base and path), while one is under way. */
const turns = new WeakMap<Redis | Cluster, Map<string, Promise<unknown>>>();

/** Runs `task` after the tasks queued before it under `key` on `client` have settled. */
export const inTurn = <T>(client: Redis | Cluster, key: string, task: () => Promise<T>): Promise<T> => {
  let queue = turns.get(client);
  if (!queue) {
    queue = new Map();
    turns.set(client, queue);
  }
  const previous = queue.get(key);
  const result = previous ? previous.then(task, task) : task();
  const settled = result.then(
    () => {},
    () => {},
  );
  queue.set(key, settled);
  const own = queue;
  settled.then(() => {
    if (own.get(key) === settled) own.delete(key);
  });
  return result;
};
