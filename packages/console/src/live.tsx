/** The change feed while the page is open (server-sent events). */
import { useEffect, useState } from "preact/hooks";
import { api, type LiveChange } from "./api.js";
import { Shown } from "./shown.js";

const KEEP = 50;

interface Props {
  tenant: string | undefined;
  onChange: () => void;
  /** Connect only once this is true: the first listing of a large store is not slowed by the feed's. */
  ready: boolean;
}

export function Live({ tenant, onChange, ready }: Props) {
  const [changes, setChanges] = useState<LiveChange[]>([]);
  const [connected, setConnected] = useState(false);

  useEffect(() => {
    setChanges([]);
    if (!ready) return;
    const source = new EventSource(api.eventsUrl(tenant));
    source.onopen = () => setConnected(true);
    source.onerror = () => setConnected(false);
    source.onmessage = (event: MessageEvent<string>) => {
      const change = JSON.parse(event.data) as LiveChange;
      setChanges((now) => [change, ...now].slice(0, KEEP));
      onChange();
    };
    return () => source.close();
  }, [tenant, ready]);

  return (
    <div class="live">
      <h2>
        Live <span class={connected ? "dot on" : "dot"} />{" "}
        <span class="state">{connected ? "connected" : "connecting…"}</span>
      </h2>
      <ol aria-label="Live changes" aria-live="polite" class="changes">
        {changes.length === 0 && <li class="muted">Changes appear here as they happen.</li>}
        {changes.map((c, i) => (
          <li key={`${c.time}-${c.path}-${i}`}>
            <time dateTime={new Date(c.time).toISOString()}>{new Date(c.time).toLocaleTimeString()}</time>{" "}
            <span class={`kind ${c.kind}`}>{c.kind}</span>{" "}
            <span class="path">
              <Shown text={c.path} />
            </span>
            {c.size !== undefined ? <span class="size"> {c.size} bytes</span> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}
