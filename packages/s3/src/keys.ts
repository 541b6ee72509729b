/** The mapping between canonical memory paths and object keys. */
import { createHash, randomUUID } from "node:crypto";
import { ROOT, segmentsOf } from "@mem/core";

/** The top-level name under which rename journals live; users can never name it. */
export const JOURNAL_NAME = ".mem-s3-rename";
/** The top-level name of the scratch keys on which a store measures the server's conditional writes. */
export const PROBE_NAME = ".mem-s3-probe";

/** The top-level name under which tenants live: `{prefix}.mem-s3-tenants/{tenant}/` is a scope's prefix. */
export const TENANTS_NAME = ".mem-s3-tenants";

/** The object holding a store's access times when expiry is on: `{prefix}.mem-s3-access.json`. */
export const ACCESS_NAME = ".mem-s3-access.json";

/** Names the store keeps for itself; users can never name them. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  JOURNAL_NAME,
  PROBE_NAME,
  TENANTS_NAME,
  ACCESS_NAME,
]);

export class KeySpace {
  constructor(readonly prefix: string) {
    if (prefix !== "" && !prefix.endsWith("/")) {
      throw new TypeError('S3Store: `prefix` must be empty or end with "/"');
    }
  }

  /** `/memories/a/b` → `{prefix}a/b`. */
  keyOf(path: string): string {
    return this.prefix + segmentsOf(path).join("/");
  }

  /** The prefix every key beneath directory `path` starts with: `{prefix}a/b/`, or `{prefix}` for the root. */
  dirPrefixOf(path: string): string {
    return path === ROOT ? this.prefix : `${this.keyOf(path)}/`;
  }

  /** The memory path of a key of this store; `null` for keys no memory path maps to. */
  pathOfKey(key: string): string | null {
    if (!key.startsWith(this.prefix)) return null;
    const rest = key.slice(this.prefix.length);
    if (rest === "" || rest.split("/").includes("")) return null;
    const top = rest.split("/", 1)[0]!;
    if (RESERVED_NAMES.has(top)) return null;
    return `${ROOT}/${rest}`;
  }

  /** Where the journal of a directory rename into `to` lives. */
  journalKey(to: string): string {
    return `${this.journalPrefix}${createHash("sha256").update(to).digest("hex")}.json`;
  }

  /** The prefix of the scope of `tenant` (already checked). */
  tenantPrefix(tenant: string): string {
    return `${this.prefix}${TENANTS_NAME}/${tenant}/`;
  }

  get accessKey(): string {
    return `${this.prefix}${ACCESS_NAME}`;
  }

  /** A fresh key on which to measure the server's conditional writes (see `conditions.ts`). */
  scratchKey(): string {
    return `${this.probePrefix}${randomUUID()}`;
  }

  /** The prefix of every scratch key of this store. */
  get probePrefix(): string {
    return `${this.prefix}${PROBE_NAME}/`;
  }

  get journalPrefix(): string {
    return `${this.prefix}${JOURNAL_NAME}/`;
  }
}

/** The `x-amz-copy-source` value for a key: bucket and key, each path segment URL-encoded. */
export const copySourceOf = (bucket: string, key: string): string =>
  `${encodeURIComponent(bucket)}/${key.split("/").map(encodeURIComponent).join("/")}`;
