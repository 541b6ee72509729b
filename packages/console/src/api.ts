/** The console server's JSON API, as the page uses it. */

export interface Info {
  writes: boolean;
  csrf: string;
  tenants: boolean;
  scoped: boolean;
  /** The store keeps a change log (`changes()`), or its tenants may. */
  audit: boolean;
  /** `mem`'s version. */
  version: string;
  /** The store (URL with the password masked) and its kind, when `mem serve` gave them. */
  store?: { name: string; backend: string };
  tenant?: string;
  quota: { maxFiles?: number; maxTotalBytes?: number };
  /** The mount points of a store made of mounts, and their access. */
  mounts?: { path: string; access: "read_write" | "read_only" }[];
}
export interface TenantInfo {
  id: string;
  files?: number;
  bytes?: number;
  historyBytes?: number;
  lastAccess?: number;
}
export interface Entry {
  name: string;
  path: string;
  kind: "file" | "directory";
  size: string;
  bytes: number;
  hidden?: boolean;
  /** A read-only mount point. */
  readOnly?: boolean;
}
export interface Listing {
  path: string;
  size: string;
  entries: Entry[];
  omitted: number;
}
export interface View {
  content: string;
  isError: boolean;
  image?: { mediaType: string; data: string };
  next?: [number, number];
}
export interface Version {
  id: string;
  time: number;
  size: number;
  command?: string;
  actor?: string;
}
export interface SearchHit {
  path: string;
  line: number;
  text: string;
  /** Where `text` matched: `[start, end)` in UTF-16 code units. */
  marks: [number, number][];
}
export interface SearchPage {
  hits: SearchHit[];
  next?: string;
  searched: number;
  total: number;
}
export interface Change {
  id: string;
  time: number;
  actor: string | null;
  command: string;
  path: string;
  newPath?: string;
  version: string | null;
}
export interface ChangeFilter {
  by?: string;
  path?: string;
  since?: number;
  until?: number;
}
export interface LiveChange {
  kind: "added" | "removed" | "changed" | "restored";
  path: string;
  size?: number;
  entry: "file" | "directory";
  time: number;
}

/** The query string of an API call: unset, `false` and empty values are left out, `true` is `1`. */
export const query = (params: Record<string, string | number | boolean | undefined>): string => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === false || value === "") continue;
    search.set(key, value === true ? "1" : String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
};

export class ApiError extends Error {}

const get = async <T>(
  path: string,
  params: Record<string, string | number | boolean | undefined>,
  signal?: AbortSignal,
): Promise<T> => {
  const response = await fetch(`api/${path}${query(params)}`, {
    signal: signal ?? null,
    credentials: "same-origin",
  });
  const body = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new ApiError(body.error ?? `HTTP ${response.status}`);
  return body;
};

const post = async <T>(csrf: string, path: string, tenant: string | undefined, body: unknown): Promise<T> => {
  const response = await fetch(`api/${path}${query({ tenant })}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Mem-CSRF": csrf },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as T & { error?: string };
  if (!response.ok) throw new ApiError(answer.error ?? `HTTP ${response.status}`);
  return answer;
};

export const api = {
  info: () => get<Info>("info", {}),
  /** A page of the store's tenants; a store that lists none answers with `tenant` (the `?tenant=` one). */
  tenants: (after?: string, tenant?: string) =>
    get<{ tenants: TenantInfo[]; next?: string }>("tenants", { after, tenant }),
  list: (tenant: string | undefined, path: string, hidden: boolean, limit?: number) =>
    get<Listing>("list", { tenant, path, hidden, limit }),
  view: (tenant: string | undefined, path: string, range?: [number, number]) =>
    get<View>("view", { tenant, path, start: range?.[0], end: range?.[1] }),
  raw: (tenant: string | undefined, path: string) =>
    get<{ text: string; bytes: number }>("raw", { tenant, path }),
  versions: (tenant: string | undefined, path: string) =>
    get<{ history: boolean; versions: Version[]; readOnly?: boolean }>("versions", { tenant, path }),
  version: (tenant: string | undefined, path: string, id: string) =>
    get<{ text: string }>("version", { tenant, path, id }),
  search: (
    tenant: string | undefined,
    q: string,
    regex: boolean,
    hidden: boolean,
    cursor: string | undefined,
    signal: AbortSignal,
    files?: number,
  ) => get<SearchPage>("search", { tenant, q, regex, hidden, cursor, files }, signal),
  changes: (tenant: string | undefined, filter: ChangeFilter, after?: string) =>
    get<{ changes: Change[]; next?: string }>("changes", { tenant, ...filter, after }),
  restore: (csrf: string, tenant: string | undefined, path: string, id: string) =>
    post<{ replacedVersionId?: string | null }>(csrf, "restore", tenant, { path, id }),
  rollback: (csrf: string, tenant: string | undefined, to: number, by?: string) =>
    post<{ id: string | null; restored: string[]; deleted: string[]; skipped: string[] }>(
      csrf,
      "rollback",
      tenant,
      { to, ...(by ? { by } : {}) },
    ),
  eventsUrl: (tenant: string | undefined) => `api/events${query({ tenant })}`,
  exportUrl: (tenant: string | undefined) => `api/export${query({ tenant })}`,
};
