/** The console page: tenants, tree, file, search and the live feed of one store served by `mem serve`. */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api, type Info } from "./api.js";
import { Audit } from "./audit.js";
import { FilePanel } from "./file.js";
import { Live } from "./live.js";
import { Search } from "./search.js";
import { Shown } from "./shown.js";
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
  const [auditing, setAuditing] = useState(false);
  const [treeShown, setTreeShown] = useState(false);

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
  const openFile = (opened: string) => {
    setAuditing(false);
    setPath(opened);
  };
  return (
    <div class="app">
      <header class="top">
        <h1>
          <img src="./favicon.svg" alt="" width="20" height="20" /> mem console
        </h1>
        <span class="version" title="the version of mem">
          v{info.version}
        </span>
        {info.store && (
          <span class="store" title={info.store.backend}>
            <span class="store-name">{info.store.name}</span>{" "}
            <span class="backend">{info.store.backend}</span>
          </span>
        )}
        {shownTenant && (
          <span class="badge">
            tenant <Shown text={shownTenant} />
          </span>
        )}
        <span class={info.writes ? "badge writes" : "badge"}>
          {info.writes ? "writes allowed" : "read-only"}
        </span>
        {info.audit && (
          <button type="button" aria-pressed={auditing} onClick={() => setAuditing(!auditing)}>
            Audit
          </button>
        )}
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
            <Tenants
              lists={info.tenants}
              selected={shownTenant}
              onSelect={choose}
              quota={info.quota}
              refresh={refresh}
            />
          )}
          <Search tenant={info.tenant ? undefined : tenant} hidden={hidden} onOpen={openFile} />
          <Tree
            tenant={info.tenant ? undefined : tenant}
            hidden={hidden}
            selected={path}
            onOpenFile={openFile}
            onLoaded={() => setTreeShown(true)}
            refresh={refresh}
          />
        </nav>
        <main class="main">
          {auditing ? (
            <Audit
              tenant={info.tenant ? undefined : tenant}
              writes={info.writes}
              csrf={info.csrf}
              refresh={refresh}
              onRolledBack={bump}
            />
          ) : (
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
          )}
        </main>
        <aside class="feed">
          <Live tenant={info.tenant ? undefined : tenant} onChange={bump} ready={treeShown} />
        </aside>
      </div>
    </div>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
