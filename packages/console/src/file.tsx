/** The file panel: what `view` shows the model (paged by view_range), the raw text, or the image. */
import { useEffect, useState } from "preact/hooks";
import { api, type View } from "./api.js";
import { History } from "./history.js";
import { plain, Shown } from "./shown.js";

interface Props {
  tenant: string | undefined;
  path: string | undefined;
  writes: boolean;
  csrf: string;
  refresh: number;
  onRestored: () => void;
}

export function FilePanel({ tenant, path, writes, csrf, refresh, onRestored }: Props) {
  const [tab, setTab] = useState<"view" | "raw" | "history">("view");
  const [view, setView] = useState<View | undefined>();
  const [range, setRange] = useState<[number, number] | undefined>();
  const [raw, setRaw] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    if (!path) return;
    let live = true;
    setError(undefined);
    api
      .view(tenant, path, range)
      .then((v) => live && setView(v))
      .catch((e: Error) => live && setError(e.message));
    if (tab === "raw") {
      api
        .raw(tenant, path)
        .then((r) => live && setRaw(r.text))
        .catch((e: Error) => live && setError(e.message));
    }
    return () => {
      live = false;
    };
  }, [tenant, path, range, tab, refresh]);

  if (!path) {
    return (
      <section aria-label="File" class="file-panel">
        <p class="muted">Pick a file in the tree.</p>
      </section>
    );
  }

  return (
    <section aria-label="File" class="file-panel">
      <header class="file-head">
        <h2 class="path">
          <Shown text={path} />
        </h2>
        <div role="tablist" aria-label="Show" class="tabs">
          {(["view", "raw", "history"] as const).map((name) => (
            <button
              type="button"
              role="tab"
              key={name}
              aria-selected={tab === name}
              onClick={() => setTab(name)}
            >
              {name === "view" ? "As the model sees it" : name === "raw" ? "Raw" : "History"}
            </button>
          ))}
        </div>
      </header>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {tab === "view" && view && (
        <div class="view">
          {view.image ? (
            <img
              class="image"
              alt={plain(path)}
              src={`data:${view.image.mediaType};base64,${view.image.data}`}
            />
          ) : null}
          <section aria-label="View result">
            <pre class={view.isError ? "content error" : "content"}>
              <Shown text={view.content} />
            </pre>
          </section>
          <nav class="pager" aria-label="Pages">
            {range && (
              <button type="button" onClick={() => setRange(undefined)}>
                First page
              </button>
            )}
            {view.next && (
              <button type="button" onClick={() => setRange(view.next)}>
                Next page (lines {view.next[0]}–{view.next[1]})
              </button>
            )}
          </nav>
        </div>
      )}
      {tab === "raw" && raw !== undefined && (
        <section aria-label="Raw text">
          <pre class="content raw">
            <Shown text={raw} />
          </pre>
        </section>
      )}
      {tab === "history" && (
        <History
          tenant={tenant}
          path={path}
          writes={writes}
          csrf={csrf}
          refresh={refresh}
          onRestored={onRestored}
        />
      )}
    </section>
  );
}
