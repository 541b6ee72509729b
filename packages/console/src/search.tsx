/** Search across the tenant's files; a new query (or Stop) aborts the one in flight. */
import { useRef, useState } from "preact/hooks";
import { api, type SearchHit } from "./api.js";
import { Shown } from "./shown.js";

interface Props {
  tenant: string | undefined;
  hidden: boolean;
  onOpen: (path: string) => void;
}

export function Search({ tenant, hidden, onOpen }: Props) {
  const [text, setText] = useState("");
  const [regex, setRegex] = useState(false);
  const [hits, setHits] = useState<SearchHit[] | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const running = useRef<AbortController | undefined>(undefined);

  const run = async (cursor?: string) => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setBusy(true);
    setError(undefined);
    try {
      const page = await api.search(tenant, text, regex, hidden, cursor, controller.signal);
      setHits((now) => (cursor ? [...(now ?? []), ...page.hits] : page.hits));
      setNext(page.next);
    } catch (e) {
      if ((e as Error).name !== "AbortError") setError((e as Error).message);
    } finally {
      if (running.current === controller) setBusy(false);
    }
  };

  return (
    <div class="search">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (text !== "") void run();
        }}
      >
        <input
          type="search"
          aria-label="Search memory"
          placeholder="Search files…"
          value={text}
          onInput={(e) => setText(e.currentTarget.value)}
        />
        <label>
          <input type="checkbox" checked={regex} onChange={(e) => setRegex(e.currentTarget.checked)} /> regex
        </label>
        {/* Two elements, not one changing its type: a click on Stop must never land on a submit button
            (the abort re-renders before the click's default action, which would then search again). */}
        {busy ? (
          <button key="stop" type="button" onClick={() => running.current?.abort()}>
            Stop
          </button>
        ) : (
          <button key="search" type="submit">
            Search
          </button>
        )}
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {hits && (
        <ul aria-label="Search results" class="hits">
          {hits.length === 0 && <li class="muted">No matches.</li>}
          {hits.map((hit) => (
            <li key={`${hit.path}:${hit.line}`}>
              <button type="button" class="hit" onClick={() => onOpen(hit.path)}>
                <span class="where">
                  <Shown text={hit.path} />:{hit.line}
                </span>
                <span class="text">{hit.text}</span>
              </button>
            </li>
          ))}
          {next && (
            <li>
              <button type="button" onClick={() => void run(next)}>
                More results
              </button>
            </li>
          )}
        </ul>
      )}
    </div>
  );
}
