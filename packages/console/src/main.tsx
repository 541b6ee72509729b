/** The console page: tenants, tree, file, search and the live feed of one store served by `mem serve`. */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, type Info } from "./api.js";
import { FilePanel } from "./file.js";
import { Live } from "./live.js";
import { Search } from "./search.js";
import { Tenants } from "./tenants.js";
import { Tree } from "./tree.js";
import "./style.css";

const initialTenant = () => new URLSearchParams(location.search).get("tenant") ?? undefined;

function App() {
  const [info, setInfo] = useState<Info | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [tenant, setTenant] = useState<string | undefined>(initialTenant());
  const [path, setPath] = useState<string | undefined>();
  const [hidden, setHidden] = useState(false);
  const [refresh, setRefresh] = useState(0);

  useEffect(() => {
    api
      .info()
      .then(setInfo)
      .catch((e: Error) => setError(e.message));
  }, []);

  const choose = (id: string) => {
    setTenant(id);
    setPath(undefined);
    const url = new URL(location.href);
    url.searchParams.set("tenant", id);
    history.replaceState(null, "", url);
  };

  if (error)
    return (
      <p class="error" role="alert">
        {error}
      </p>
    );
  if (!info) return <p class="muted">Loading…</p>;
  const shownTenant = info.tenant ?? tenant;
  const bump = () => setRefresh((n) => n + 1);
  return (
    <div class="app">
      <header class="top">
        <h1>mem console</h1>
        {shownTenant && <span class="badge">tenant {shownTenant}</span>}
        <span class="badge">{info.writes ? "writes allowed" : "read-only"}</span>
        <label class="toggle">
          <input type="checkbox" checked={hidden} onChange={(e) => setHidden(e.currentTarget.checked)} />{" "}
          hidden names
        </label>
        <a class="export" href={api.exportUrl(info.tenant ? undefined : tenant)} download>
          Export archive
        </a>
      </header>
      <div class="columns">
        <nav class="side" aria-label="Memory">
          {(info.tenants || shownTenant !== undefined) && (
            <Tenants lists={info.tenants} selected={shownTenant} onSelect={choose} quota={info.quota} />
          )}
          <Search tenant={info.tenant ? undefined : tenant} hidden={hidden} onOpen={setPath} />
          <Tree
            tenant={info.tenant ? undefined : tenant}
            hidden={hidden}
            selected={path}
            onOpenFile={setPath}
            refresh={refresh}
          />
        </nav>
        <main class="main">
          <FilePanel
            // A new file starts at its first page.
            key={`${tenant ?? ""}\n${path ?? ""}`}
            tenant={info.tenant ? undefined : tenant}
            path={path}
            writes={info.writes}
            csrf={info.csrf}
            refresh={refresh}
            onRestored={bump}
          />
        </main>
        <aside class="feed">
          <Live tenant={info.tenant ? undefined : tenant} onChange={bump} />
        </aside>
      </div>
    </div>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
