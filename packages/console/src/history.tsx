/** The versions of a file, a diff between any two, and restore (when the console allows writes). */
import { diffLines } from "diff";
import { useEffect, useState } from "preact/hooks";
import { api, type Version } from "./api.js";
import { ago, exact } from "./when.js";

/** Who made a version, with what command, in words: "str_replace by agent-7", "restore by console". */
const madeBy = (v: Version): string => `${v.command ?? "change"}${v.actor ? ` by ${v.actor}` : ""}`;

interface Props {
  tenant: string | undefined;
  path: string;
  writes: boolean;
  csrf: string;
  refresh: number;
  onRestored: () => void;
}

const CURRENT = "current";

interface VersionSelectProps {
  name: "From" | "To";
  value: string | undefined;
  choices: string[];
  label: (id: string) => string;
  onPick: (id: string) => void;
}

/** One end of the diff: a labelled choice among the versions and the current content. */
function VersionSelect({ name, value, choices, label, onPick }: VersionSelectProps) {
  return (
    <label>
      {name}{" "}
      <select
        aria-label={`Diff ${name.toLowerCase()}`}
        value={value}
        onChange={(e) => onPick(e.currentTarget.value)}
      >
        {choices.map((id) => (
          <option key={id} value={id}>
            {label(id)}
          </option>
        ))}
      </select>
    </label>
  );
}

export function History({ tenant, path, writes, csrf, refresh, onRestored }: Props) {
  const [versions, setVersions] = useState<Version[] | undefined>();
  const [kept, setKept] = useState(true);
  // A path in a read-only mount is never restored: no button is offered.
  const [readOnly, setReadOnly] = useState(false);
  const [from, setFrom] = useState<string | undefined>();
  const [to, setTo] = useState<string>(CURRENT);
  const [texts, setTexts] = useState<[string, string] | undefined>();
  const [confirming, setConfirming] = useState<string | undefined>();
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    api
      .versions(tenant, path)
      .then((v) => {
        setKept(v.history);
        setReadOnly(v.readOnly === true);
        setVersions(v.versions);
        if (v.versions[0]) setFrom((now) => now ?? v.versions[0]?.id);
      })
      .catch((e: Error) => setError(e.message));
  }, [tenant, path, refresh]);

  useEffect(() => {
    if (from === undefined) return;
    Promise.all([api.version(tenant, path, from), api.version(tenant, path, to)])
      .then(([a, b]) => setTexts([a.text, b.text]))
      .catch((e: Error) => setError(e.message));
  }, [tenant, path, from, to, refresh]);

  const restore = async (id: string) => {
    try {
      const result = await api.restore(csrf, tenant, path, id);
      const v = versions?.find((each) => each.id === id);
      setMessage(
        `Restored the version of ${v ? exact(v.time) : id}${result.replacedVersionId ? "; the content it replaced is kept as a version" : ""}.`,
      );
      setConfirming(undefined);
      onRestored();
    } catch (e) {
      setError((e as Error).message);
      setConfirming(undefined);
    }
  };

  if (!kept) return <p class="muted">This store keeps no versions (open it with ?history to keep them).</p>;
  if (!versions) return <p class="muted">Loading…</p>;
  const byId = new Map(versions.map((v) => [v.id, v]));
  const label = (id: string) => {
    const v = byId.get(id);
    return v ? `${ago(v.time)}: ${madeBy(v)}` : "current";
  };
  const choices = [CURRENT, ...versions.map((v) => v.id)];
  return (
    <div class="history">
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {message && <output class="note">{message}</output>}
      {versions.length === 0 && <p class="muted">No earlier versions.</p>}
      <ol aria-label="History" class="versions">
        {versions.map((v) => (
          <li key={v.id} aria-label={`Version ${v.id}`}>
            <time dateTime={new Date(v.time).toISOString()} title={exact(v.time)}>
              {ago(v.time)}
            </time>
            <span class={`command ${v.command ?? "change"}`}>{v.command ?? "change"}</span>
            <span class="actor">{v.actor ? `by ${v.actor}` : "by an unnamed actor"}</span>
            <span class="size">{v.size} bytes</span>
            {writes &&
              !readOnly &&
              (confirming === v.id ? (
                <fieldset class="confirm">
                  <legend>Restore this version?</legend>
                  <button type="button" onClick={() => void restore(v.id)}>
                    Yes, restore
                  </button>
                  <button type="button" onClick={() => setConfirming(undefined)}>
                    Cancel
                  </button>
                </fieldset>
              ) : (
                <button type="button" onClick={() => setConfirming(v.id)}>
                  Restore…
                </button>
              ))}
          </li>
        ))}
      </ol>
      {versions.length > 0 && (
        <div class="diff-controls">
          <VersionSelect name="From" value={from} choices={choices} label={label} onPick={setFrom} />
          <VersionSelect name="To" value={to} choices={choices} label={label} onPick={setTo} />
        </div>
      )}
      {texts && <Diff before={texts[0]} after={texts[1]} />}
    </div>
  );
}

function Diff({ before, after }: { before: string; after: string }) {
  const parts = diffLines(before, after);
  return (
    <section aria-label="Diff">
      <pre class="diff">
        {parts.flatMap((part, i) => {
          const sign = part.added ? "+" : part.removed ? "-" : " ";
          const kind = part.added ? "add" : part.removed ? "del" : "same";
          const lines = part.value.replace(/\n$/, "").split("\n");
          return lines.map((line, j) => (
            <span key={`${i}-${j}`} class={`line ${kind}`}>
              {`${sign} ${line}\n`}
            </span>
          ));
        })}
      </pre>
    </section>
  );
}
