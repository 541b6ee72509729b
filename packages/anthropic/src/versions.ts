/**
 * The hosted store's memory versions through the interface `@mem/history` gives (`versions`,
 * `readVersion`, `restore`, `redact`), so `mem history` and the console show hosted history. The actor of
 * a version is the API's `created_by`: the id of the API key, session, user or service account that
 * made the change, recorded by the API from the credential, never given by this store.
 */

import type { BetaManagedAgentsActor } from "@anthropic-ai/sdk/resources/beta/memory-stores/memory-versions.js";
import { type MemoryStore, NotFoundError, StoreFailureError, updateWithRetry } from "@mem/core";
import { type Memory, type MemoryVersion, RequestFailure, type Requests } from "./requests.js";

/** One version of a file in the hosted store, newest first in `versions()`. */
export interface HostedVersionInfo {
  /** The API's version id (`memver_...`). */
  readonly id: string;
  /** When it was written, in ms since the epoch. */
  readonly time: number;
  /** Its size in bytes (0 once redacted, and for the version that records a delete). */
  readonly size: number;
  /** The API's `operation`: `created`, `modified` or `deleted`. */
  readonly command: "created" | "modified" | "deleted";
  /** Who wrote it: the id in the API's `created_by` (`apikey_...`, `sesn_...`, `user_...`, `svac_...`). */
  readonly actor?: string;
  /** Set once redacted: when, and by whom (the id in `redacted_by`). */
  readonly redacted?: { readonly time: number; readonly by?: string };
}

/** `readVersion` or `restore` of a redacted version: its content is gone. */
export class RedactedVersionError extends Error {
  readonly code = "REDACTED";
  constructor(
    readonly path: string,
    readonly id: string,
  ) {
    super(`version ${id} of ${path} was redacted`);
    this.name = "RedactedVersionError";
  }
}

/** The id an actor is known by. */
export const actorName = (actor: BetaManagedAgentsActor | null | undefined): string | undefined => {
  if (!actor) return undefined;
  switch (actor.type) {
    case "api_actor":
      return actor.api_key_id;
    case "session_actor":
      return actor.session_id;
    case "user_actor":
      return actor.user_id;
    case "service_account_actor":
      return actor.service_account_id;
    default:
      return undefined;
  }
};

const infoOf = (v: MemoryVersion): HostedVersionInfo => {
  const actor = actorName(v.created_by);
  const by = actorName(v.redacted_by);
  return {
    id: v.id,
    time: Date.parse(v.created_at),
    size: v.content_size_bytes ?? 0,
    command: v.operation,
    ...(actor !== undefined ? { actor } : {}),
    ...(v.redacted_at
      ? { redacted: { time: Date.parse(v.redacted_at), ...(by !== undefined ? { by } : {}) } }
      : {}),
  };
};

/**
 * The versions of the memory at `storePath` (all of its lineage, whatever paths it had), the current one
 * left out; for a path with no memory now, the versions of every memory that was there. One listing of
 * the memory's versions, or of the store's when the file is gone.
 */
export async function versionsOf(
  requests: Requests,
  storePath: string,
  current: () => Promise<Memory | null>,
): Promise<HostedVersionInfo[]> {
  const memory = await current();
  if (memory) {
    const versions = await requests.allVersions({ memory_id: memory.id });
    return versions.filter((v) => v.id !== memory.memory_version_id).map(infoOf);
  }
  const all = await requests.allVersions({});
  const lineages = new Set(all.filter((v) => v.path === storePath).map((v) => v.memory_id));
  return all.filter((v) => lineages.has(v.memory_id)).map(infoOf);
}

async function versionOf(
  requests: Requests,
  storePath: string,
  id: string,
  current: () => Promise<Memory | null>,
): Promise<MemoryVersion | null> {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(id)) return null;
  let version: MemoryVersion;
  try {
    version = await requests.send((o) =>
      requests.versions.retrieve(id, { memory_store_id: requests.storeId, view: "full" }, o),
    );
  } catch (error) {
    if (error instanceof RequestFailure && error.status === 404) return null;
    throw error instanceof RequestFailure ? new StoreFailureError("retrieving the version failed") : error;
  }
  if (version.path === storePath) return version;
  const memory = await current();
  return memory && memory.id === version.memory_id ? version : null;
}

export async function readVersion(
  requests: Requests,
  storePath: string,
  id: string,
  current: () => Promise<Memory | null>,
): Promise<Uint8Array | null> {
  const version = await versionOf(requests, storePath, id, current);
  if (!version) return null;
  if (version.redacted_at) throw new RedactedVersionError(storePath, id);
  if (typeof version.content !== "string") return null;
  return new TextEncoder().encode(version.content);
}

export async function restoreVersion(
  store: MemoryStore,
  requests: Requests,
  storePath: string,
  path: string,
  id: string,
  current: () => Promise<Memory | null>,
): Promise<{ replacedVersionId: string | undefined }> {
  const data = await readVersion(requests, storePath, id, current).catch((error: unknown) => {
    throw error instanceof RedactedVersionError ? new RedactedVersionError(path, id) : error;
  });
  if (!data) throw new NotFoundError(path);
  const before = await current();
  await updateWithRetry(store, path, () => data);
  return { replacedVersionId: before?.memory_version_id };
}

export async function redactVersion(
  requests: Requests,
  storePath: string,
  path: string,
  id: string,
  current: () => Promise<Memory | null>,
): Promise<void> {
  const version = await versionOf(requests, storePath, id, current);
  if (!version) throw new NotFoundError(path);
  if (version.redacted_at) return;
  try {
    await requests.send((o) => requests.versions.redact(id, { memory_store_id: requests.storeId }, o));
  } catch (error) {
    if (error instanceof RequestFailure && error.status === 409)
      throw new StoreFailureError("the current version cannot be redacted; edit or delete the file first");
    throw error instanceof RequestFailure ? new StoreFailureError("redacting the version failed") : error;
  }
}
