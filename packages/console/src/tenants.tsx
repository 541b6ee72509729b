/**
 * The tenants: a store's own list, paged (files, bytes, last access, quota use), or, for a store that
 * lists none, the one tenant the address names.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type TenantInfo } from "./api.js";
import { Shown } from "./shown.js";

const size = (bytes: number | undefined) =>
  bytes === undefined ? "—" : bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;

const use = (value: number | undefined, max: number | undefined) =>
  value === undefined || max === undefined || max === 0 ? undefined : Math.round((value / max) * 100);

type SortKey = "id" | "files" | "bytes" | "historyBytes" | "lastAccess" | "quota";
const COLUMNS: [SortKey, string][] = [
  ["id", "Tenant"],
  ["files", "Files"],
  ["bytes", "Bytes"],
  ["historyBytes", "History"],
  ["lastAccess", "Last access"],
  ["quota", "Quota use"],
];

interface Props {
  /** The store lists its tenants; otherwise only `selected` is shown. */
  lists: boolean;
  selected: string | undefined;
  onSelect: (id: string) => void;
  quota: { maxFiles?: number; maxTotalBytes?: number };
  /** Changes when the live feed saw a change: the loaded pages are fetched again. */
  refresh: number;
}

export function Tenants({ lists, selected, onSelect, quota, refresh }: Props) {
  const limited = quota.maxFiles !== undefined || quota.maxTotalBytes !== undefined;
  const [tenants, setTenants] = useState<TenantInfo[]>([]);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loaded, setLoaded] = useState(false);
  const [sort, setSort] = useState<{ key: SortKey; up: boolean }>({ key: "id", up: true });

  // The `after` of each page loaded beyond the first, to fetch them all again on a change.
  const pages = useRef<string[]>([]);
  const reloading = useRef(false);

  const load = (after?: string) =>
    api
      .tenants(after, lists ? undefined : selected)
      .then((page) => {
        if (after) pages.current.push(after);
        else pages.current = [];
        setTenants((now) => (after ? [...now, ...page.tenants] : page.tenants));
        setNext(page.next);
        setLoaded(true);
      })
      .catch((e: Error) => setError(e.message));

  const reload = async () => {
    if (reloading.current) return;
    reloading.current = true;
    try {
      const rows: TenantInfo[] = [];
      let last: string | undefined;
      for (const after of [undefined, ...pages.current]) {
        const page = await api.tenants(after, lists ? undefined : selected);
        rows.push(...page.tenants);
        last = page.next;
      }
      setTenants(rows);
      setNext(last);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      reloading.current = false;
    }
  };

  useEffect(() => {
    void load();
  }, [lists ? undefined : selected]);

  useEffect(() => {
    if (refresh > 0 && loaded) void reload();
  }, [refresh]);

  const kept = tenants.some((t) => t.historyBytes !== undefined);

  // A store without tenants (or none yet) gets no empty table.
  if (!error && (!loaded || tenants.length === 0)) return null;
  return (
    <div class="tenants">
      <h2>Tenants</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <table aria-label="Tenants">
        <thead>
          <tr>
            {COLUMNS.filter(([key]) => (key !== "quota" || limited) && (key !== "historyBytes" || kept)).map(
              ([key, title]) => (
                <th
                  scope="col"
                  key={key}
                  aria-sort={sort.key === key ? (sort.up ? "ascending" : "descending") : "none"}
                >
                  <button
                    type="button"
                    class="sort"
                    onClick={() => setSort({ key, up: sort.key === key ? !sort.up : key === "id" })}
                  >
                    {title}
                    <span aria-hidden="true">{sort.key === key ? (sort.up ? " ▲" : " ▼") : ""}</span>
                  </button>
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>
          {sorted(tenants, sort, quota).map((t) => (
            <tr key={t.id} aria-selected={selected === t.id} class={selected === t.id ? "selected" : ""}>
              <td>
                <button type="button" onClick={() => onSelect(t.id)}>
                  <Shown text={t.id} />
                </button>
              </td>
              <td>{t.files ?? "—"}</td>
              <td>{size(t.bytes)}</td>
              {kept && <td>{size(t.historyBytes)}</td>}
              <td>
                {t.lastAccess === undefined ? (
                  "—"
                ) : (
                  <time dateTime={new Date(t.lastAccess).toISOString()}>
                    {new Date(t.lastAccess).toLocaleString()}
                  </time>
                )}
              </td>
              {limited && <td>{quotaUse(t, quota)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
      {next && (
        <button type="button" onClick={() => void load(next)}>
          More tenants
        </button>
      )}
    </div>
  );
}

/** The larger of the tenant's file and byte use, as a percentage of the quota. */
const quotaShare = (t: TenantInfo, quota: Props["quota"]): number | undefined => {
  const shares = [use(t.files, quota.maxFiles), use(t.bytes, quota.maxTotalBytes)].filter(
    (n): n is number => n !== undefined,
  );
  return shares.length === 0 ? undefined : Math.max(...shares);
};
const quotaUse = (t: TenantInfo, quota: Props["quota"]): string => {
  const share = quotaShare(t, quota);
  return share === undefined ? "—" : `${share}%`;
};

/** The loaded rows in the chosen order; rows without the value go last either way. */
const sorted = (rows: TenantInfo[], sort: { key: SortKey; up: boolean }, quota: Props["quota"]) => {
  const value = (t: TenantInfo): string | number | undefined =>
    sort.key === "quota" ? quotaShare(t, quota) : t[sort.key];
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
    const order = x < y ? -1 : x > y ? 1 : 0;
    return sort.up ? order : -order;
  });
};
