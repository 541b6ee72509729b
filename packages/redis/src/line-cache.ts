/**
 * The `view_range` cache of each client (see `lineCacheBytes`): shared by every store and scope on the
 * client, whose keys are distinct, and checked against the store's generation and the file's version (see
 * `B g` in lua/store.lua).
 */
import { LineCache } from "@mem/core";
import type { Cluster, Redis } from "ioredis";

const caches = new WeakMap<Redis | Cluster, LineCache>();

/** The cache of `client`; the first store to ask sizes it. */
export const lineCacheOf = (client: Redis | Cluster, budget: number): LineCache => {
  let cache = caches.get(client);
  if (!cache) {
    cache = new LineCache(budget);
    caches.set(client, cache);
  }
  return cache;
};
