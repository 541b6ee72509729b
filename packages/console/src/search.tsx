/** Search across the tenant's files; a new query (or Stop) aborts the one in flight. */
import { useRef, useState } from "preact/hooks";
import { api, type SearchHit } from "./api.js";
import { Shown } from "./shown.js";

interface Props {
  tenant: string | undefined;
  hidden: boolean;
  onOpen: (path: string) => void;
}

/** Files one request reads: a long search comes back often enough to show how far it got. */
const FILES_PER_REQUEST = 200;
/** Hits one click on Search (or More results) collects. */
const HITS_PER_PAGE = 100;

/** A hit's line with its matches marked. */
function Marked({ text, marks }: { text: string; marks: [number, number][] }) {
  const parts = [];
  let at = 0;
  for (const [start, end] of marks) {
    if (start < at) continue;
    if (start > at) parts.push(<Shown key={`t${at}`} text={text.slice(at, start)} />);
    parts.push(
      <mark key={`m${start}`}>
        <Shown text={text.slice(start, end)} />
      </mark>,
    );
    at = end;
  }
  if (at < text.length) parts.push(<Shown key={`t${at}`} text={text.slice(at)} />);
  return <>{parts}</>;
}

export function Search({ tenant, hidden, onOpen }: Props) {
  const [text, setText] = useState("");
  const [regex, setRegex] = useState(false);
  const [hits, setHits] = useState<SearchHit[] | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ searched: number; total: number } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const running = useRef<AbortController | undefined>(undefined);

  const run = async (cursor?: string) => {
    running.current?.abort();
    const controller = new AbortController();
    running.current = controller;
    setBusy(true);
    setError(undefined);
    if (!cursor) {
      setHits(undefined);
      setProgress(undefined);
    }
    try {
      let at = cursor;
      let found = 0;
      do {
        const page = await api.search(tenant, text, regex, hidden, at, controller.signal, FILES_PER_REQUEST);
        const start = at === undefined ? 0 : Number(at);
        found += page.hits.length;
        setHits((now) => (at === cursor && !cursor ? page.hits : [...(now ?? []), ...page.hits]));
        setProgress({ searched: start + page.searched, total: page.total });
        at = page.next;
        setNext(at);
      } while (at !== undefined && found < HITS_PER_PAGE && !controller.signal.aborted);
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
      {progress && (
        <p class="progress" aria-live="polite">
          <progress max={progress.total} value={progress.searched} aria-label="Files searched" /> Searched{" "}
          {progress.searched} of {progress.total} files
        </p>
      )}
      {hits && (
        <ul aria-label="Search results" class="hits">
          {hits.length === 0 && !busy && <li class="muted">No matches.</li>}
          {hits.map((hit) => (
            <li key={`${hit.path}:${hit.line}`}>
              <button type="button" class="hit" onClick={() => onOpen(hit.path)}>
                <span class="where">
                  <Shown text={hit.path} />:{hit.line}
                </span>
                <span class="text">
                  <Marked text={hit.text} marks={hit.marks} />
                </span>
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
