/** The tenants of a store that lists them: files, bytes, last access. */
import { useEffect, useState } from "preact/hooks";
import { api, type TenantInfo } from "./api.js";

const size = (bytes: number | undefined) =>
  bytes === undefined ? "—" : bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`;

export function Tenants({
  selected,
  onSelect,
}: {
  selected: string | undefined;
  onSelect: (id: string) => void;
}) {
  const [tenants, setTenants] = useState<TenantInfo[]>([]);
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();

  const load = (after?: string) =>
    api
      .tenants(after)
      .then((page) => {
        setTenants((now) => (after ? [...now, ...page.tenants] : page.tenants));
        setNext(page.next);
      })
      .catch((e: Error) => setError(e.message));

  useEffect(() => {
    void load();
  }, []);

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
            <th scope="col">Tenant</th>
            <th scope="col">Files</th>
            <th scope="col">Bytes</th>
            <th scope="col">Last access</th>
          </tr>
        </thead>
        <tbody>
          {tenants.map((t) => (
            <tr key={t.id} aria-selected={selected === t.id}>
              <td>
                <button type="button" onClick={() => onSelect(t.id)}>
                  {t.id}
                </button>
              </td>
              <td>{t.files ?? "—"}</td>
              <td>{size(t.bytes)}</td>
              <td>{t.lastAccess === undefined ? "—" : new Date(t.lastAccess).toLocaleString()}</td>
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
