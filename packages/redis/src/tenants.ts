/**
 * `tenants()` and `purge()` of `RedisStore`. A store's tenants are indexed in the sorted set `B tn` of
 * the store's own key base `B` (all scores 0, so `ZRANGE … BYLEX` pages them in byte order): a scope
 * adds itself before its first change, once per client and minute. A tenant's keys are every key under
 * its key base and under the key bases of its nested tenants (`{<tag>:tenant:<id>…}`); a purge finds
 * them with `SCAN` on every node and unlinks them, then leaves its parent's index last, so a purge
 * interrupted anywhere is completed by running it again. While it runs, the erasure fence (`B x`) of the
 * tenant and of each nested tenant is up; a purge interrupted leaves them up, and running it again
 * removes them at its end.
 */

import type { PurgeResult, TenantInfo, TenantPage } from "@mem/core";
import { tenantPage } from "@mem/core";
import type { Cluster, Redis } from "ioredis";
import { scopedKeyBase } from "./keys.js";

/** The tenant index of the store whose key base is `base`. */
export const tenantIndexOf = (base: string): string => `${base}tn`;

/** When each (index, tenant) was last added to its index, per client: the add is then skipped a while. */
const registered = new WeakMap<Redis | Cluster, Map<string, number>>();
const REGISTER_AGAIN_MS = 60_000;

/** Whether `registerTenant` would send anything: false when this client added the tenant less than a minute ago. */
export const needsRegistration = (client: Redis | Cluster, parentBase: string, tenant: string): boolean => {
  const at = registered.get(client)?.get(`${parentBase}\u0000${tenant}`);
  return at === undefined || Date.now() - at >= REGISTER_AGAIN_MS;
};

/** Adds `tenant` to the index of its parent `parentBase`, unless this client did so less than a minute ago. */
export async function registerTenant(
  client: Redis | Cluster,
  parentBase: string,
  tenant: string,
): Promise<void> {
  let seen = registered.get(client);
  if (!seen) {
    seen = new Map();
    registered.set(client, seen);
  }
  const key = `${parentBase}\u0000${tenant}`;
  const at = seen.get(key);
  const now = Date.now();
  if (at !== undefined && now - at < REGISTER_AGAIN_MS) return;
  await client.zadd(tenantIndexOf(parentBase), 0, tenant);
  seen.set(key, now);
}

const forget = (client: Redis | Cluster, parentBase: string, tenant: string): void => {
  registered.get(client)?.delete(`${parentBase}\u0000${tenant}`);
};

/**
 * One page of the tenants of the store at `base`: one `ZRANGE` of the index, then per tenant of the page
 * its usage hash, whether it has nested tenants and, with expiry, its newest access: requests in
 * proportion to the page. Tenants that hold nothing any more are left out of the page.
 */
export async function listTenants(
  client: Redis | Cluster,
  base: string,
  after: string | undefined,
  limit: number,
  expiry: boolean,
): Promise<TenantPage> {
  const ids = await client.zrange(
    tenantIndexOf(base),
    after === undefined ? "-" : `(${after}`,
    "+",
    "BYLEX",
    "LIMIT",
    0,
    limit + 1,
  );
  const shown = ids.slice(0, limit);
  const infos = await Promise.all(
    shown.map(async (id): Promise<TenantInfo | null> => {
      const scoped = scopedKeyBase(base, id);
      const [[files, bytes], nested, newest] = await Promise.all([
        client.hmget(`${scoped}u`, "f", "b"),
        client.exists(tenantIndexOf(scoped)),
        expiry ? client.zrange(`${scoped}t`, -1, -1, "WITHSCORES") : Promise.resolve([] as string[]),
      ]);
      const info = { id, files: Number(files ?? 0), bytes: Number(bytes ?? 0) };
      if (info.files === 0 && Number(nested) === 0) return null;
      return newest[1] !== undefined ? { ...info, lastAccess: Number(newest[1]) } : info;
    }),
  );
  const page = tenantPage(
    infos.filter((i): i is TenantInfo => i !== null),
    limit,
  );
  const next = ids.length > limit ? shown[shown.length - 1] : undefined;
  return next === undefined ? { tenants: page.tenants } : { tenants: page.tenants, next };
}

/** Escapes the glob characters of `SCAN MATCH`. */
const globLiteral = (text: string): string => text.replace(/[*?[\]\\]/g, "\\$&");

/** The `SCAN MATCH` patterns of every key of the tenant at `scoped`, nested tenants included. */
const patternsOf = (scoped: string): string[] => {
  const close = scoped.indexOf("}");
  // `{tag}…*` (its own keys) and `{tag:tenant:*` (every nested tenant's, at any depth).
  return [`${globLiteral(scoped)}*`, `${globLiteral(scoped.slice(0, close))}:tenant:*`];
};

/** Every key matching `patterns`, on every master of a Cluster or on the one server. */
async function scanKeys(client: Redis | Cluster, patterns: readonly string[]): Promise<Buffer[]> {
  const nodes: Redis[] =
    "nodes" in client && typeof client.nodes === "function" && "slots" in client
      ? (client as Cluster).nodes("master")
      : [client as Redis];
  const found: Buffer[] = [];
  for (const node of nodes) {
    for (const pattern of patterns) {
      let cursor = "0";
      do {
        const [next, keys] = await node.scanBuffer(cursor, "MATCH", pattern, "COUNT", 1000);
        cursor = String(next);
        found.push(...keys);
      } while (cursor !== "0");
    }
  }
  return found;
}

/**
 * The erasure fence key of the tenant at key base `base` (store.lua checks it before every change). Key
 * names are handled as latin1 text, one character a byte, as `SCAN` returns them.
 */
const fenceOf = (base: string): string => `${base}x`;
const latin1 = (text: string): string => Buffer.from(text).toString("latin1");

/** The key base (through its `}:`) of a key of a store. */
const baseOf = (key: Buffer): string => {
  const name = key.toString("latin1");
  return name.slice(0, name.indexOf("}:") + 2);
};

const setAll = async (client: Redis | Cluster, keys: readonly string[]): Promise<void> => {
  await Promise.all(keys.map((key) => client.set(Buffer.from(key, "latin1"), "1")));
};

const unlinkAll = async (client: Redis | Cluster, keys: readonly (string | Buffer)[]): Promise<void> => {
  for (let i = 0; i < keys.length; i += 100) {
    await Promise.all(keys.slice(i, i + 100).map((key) => client.unlink(key)));
  }
};

/**
 * Erases the tenant at key base `scoped` (the tenant `tenant` of the store at `parentBase`): counts its
 * files and bytes (its own and its nested tenants', from their usage hashes), unlinks every key, then
 * removes it from the parent's index. With `dryRun` only counts.
 */
export async function purgeTenant(
  client: Redis | Cluster,
  parentBase: string,
  tenant: string,
  scoped: string,
  dryRun: boolean,
): Promise<PurgeResult> {
  const keys = await scanKeys(client, patternsOf(scoped));
  let files = 0;
  let bytes = 0;
  for (const key of keys) {
    const name = key.toString("latin1");
    // A usage hash is the key base (which ends with `}:`) followed by `u`.
    if (!name.endsWith("}:u")) continue;
    const [f, b] = await client.hmget(key, "f", "b");
    files += Number(f ?? 0);
    bytes += Number(b ?? 0);
  }
  if (dryRun) return { files, bytes };
  // The fences first (the tenant's own, then every nested tenant's the scan found, each in its own slot),
  // then a second scan: what was written before a fence went up is found by it.
  const fences = new Set([fenceOf(latin1(scoped)), ...keys.map((key) => fenceOf(baseOf(key)))]);
  await setAll(client, [...fences]);
  const all = await scanKeys(client, patternsOf(scoped));
  for (const key of all) fences.add(fenceOf(baseOf(key)));
  await setAll(client, [...fences]);
  // The usage hashes and tenant indexes go last: a purge stopped midway must leave the tenant listed by
  // tenants() and its counts whole, so running the purge again finds it and reports what it removes.
  const erased = all.filter((key) => !fences.has(key.toString("latin1")));
  const bookkeeping = (key: Buffer) => /\}:(u|tn)$/.test(key.toString("latin1"));
  for (const phase of [erased.filter((key) => !bookkeeping(key)), erased.filter(bookkeeping)]) {
    await unlinkAll(client, phase);
  }
  await client.zrem(tenantIndexOf(parentBase), tenant);
  forget(client, parentBase, tenant);
  // The fences end the purge: the tenant is empty and writable again.
  await unlinkAll(
    client,
    [...fences].map((key) => Buffer.from(key, "latin1")),
  );
  return { files, bytes };
}
