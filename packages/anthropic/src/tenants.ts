/**
 * Tenants are prefixes of one hosted store: tenant `t` of a store keeps its memories below
 * `<namespace>/.mem-tenants/t`. A purge deletes the tenant's memories, then redacts every version of them
 * (content, path, size and hash gone); what the API keeps is each version's metadata (ids, operation,
 * times, `created_by`) for its retention period.
 */
import {
  compareTenantIds,
  type PurgeOptions,
  type PurgeResult,
  purgeOptions,
  type TenantInfo,
  type TenantPage,
  type TenantsOptions,
  tenantPage,
  tenantPageOptions,
  unscopedPurgeError,
} from "@mem/core";
import { type Namespace, TENANTS_DIR } from "./paths.js";
import { RequestFailure, type Requests } from "./requests.js";

export async function tenantsOf(
  requests: Requests,
  ns: Namespace,
  options?: TenantsOptions,
): Promise<TenantPage> {
  const { after, limit } = tenantPageOptions(options);
  const dir = `${ns.base}/${TENANTS_DIR}/`;
  const ids: TenantInfo[] = [];
  for (const item of await requests.list(dir, 1)) {
    if (item.type !== "memory_prefix") continue;
    const id = item.path.slice(dir.length, -1);
    if (after === undefined || compareTenantIds(id, after) > 0) ids.push({ id });
  }
  ids.sort((a, b) => compareTenantIds(a.id, b.id));
  return tenantPage(ids.slice(0, limit + 1), limit);
}

export async function purgeNamespace(
  requests: Requests,
  ns: Namespace,
  tenant: string | undefined,
  options: PurgeOptions | undefined,
  forget: (storePath: string) => void,
): Promise<PurgeResult> {
  const { dryRun } = purgeOptions(options);
  if (tenant === undefined) throw unscopedPurgeError();
  const memories = (await requests.list(`${ns.base}/`, 0)).filter((m) => m.type === "memory");
  let files = 0;
  let bytes = 0;
  for (const memory of memories) {
    if (memory.type !== "memory") continue;
    files += 1;
    bytes += memory.content_size_bytes;
    if (dryRun) continue;
    try {
      await requests.send((o) =>
        requests.memories.delete(memory.id, { memory_store_id: requests.storeId }, o),
      );
    } catch (error) {
      if (!(error instanceof RequestFailure && error.status === 404)) throw error;
    }
    forget(memory.path);
  }
  if (dryRun) return { files, bytes };
  // Versions are found by the path they recorded, so a purge run again after an interruption still
  // redacts those of memories it deleted the first time.
  let versions = 0;
  const base = `${ns.base}/`;
  for (const version of await requests.allVersions({})) {
    if (version.redacted_at || typeof version.path !== "string" || !version.path.startsWith(base)) continue;
    await requests.read("redact", (o) =>
      requests.versions.redact(version.id, { memory_store_id: requests.storeId }, o),
    );
    versions += 1;
  }
  return { files, bytes, versions };
}
