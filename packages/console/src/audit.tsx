/**
 * The audit view: the store's change log (who changed what, when), filtered by actor, path and time, and
 * "roll back to here" for a write token, after a confirmation.
 */
import { useEffect, useState } from "preact/hooks";
import { api, type Change, type ChangeFilter } from "./api.js";
import { Shown } from "./shown.js";
import { ago, exact } from "./when.js";

interface Props {
  tenant: string | undefined;
  writes: boolean;
  csrf: string;
  refresh: number;
  onRolledBack: () => void;
}

const timeOf = (value: string): number | undefined => {
  if (value === "") return undefined;
  const time = Date.parse(value);
  return Number.isFinite(time) ? time : undefined;
};

export function Audit({ tenant, writes, csrf, refresh, onRolledBack }: Props) {
  const [filter, setFilter] = useState<ChangeFilter>({});
  const [draft, setDraft] = useState({ by: "", path: "", since: "", until: "" });
  const [changes, setChanges] = useState<Change[] | undefined>();
  const [next, setNext] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<Change | undefined>();
  const [message, setMessage] = useState<string | undefined>();

  const load = (after?: string) =>
    api
      .changes(tenant, filter, after)
      .then((page) => {
        setChanges((now) => (after ? [...(now ?? []), ...page.changes] : page.changes));
        setNext(page.next);
        setError(undefined);
      })
      .catch((e: Error) => setError(e.message));

  useEffect(() => {
    void load();
  }, [tenant, filter, refresh]);

  const apply = (e: Event) => {
    e.preventDefault();
    const since = timeOf(draft.since);
    const until = timeOf(draft.until);
    setFilter({
      ...(draft.by ? { by: draft.by } : {}),
      ...(draft.path ? { path: draft.path } : {}),
      ...(since === undefined ? {} : { since }),
      ...(until === undefined ? {} : { until }),
    });
  };

  const rollBack = async (change: Change) => {
    try {
      const result = await api.rollback(csrf, tenant, change.time, filter.by);
      setMessage(
        `Rolled back to ${exact(change.time)}: ${result.restored.length} restored, ${result.deleted.length} deleted, ${result.skipped.length} left as they are.`,
      );
      setConfirming(undefined);
      onRolledBack();
    } catch (e) {
      setError((e as Error).message);
      setConfirming(undefined);
    }
  };

  const field = (name: keyof typeof draft, label: string, placeholder = "") => (
    <label>
      {label}{" "}
      <input
        type="text"
        placeholder={placeholder}
        value={draft[name]}
        onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
      />
    </label>
  );

  return (
    <section aria-label="Audit" class="audit">
      <h2>Changes</h2>
      <form class="filters" aria-label="Filter changes" onSubmit={apply}>
        {field("by", "Actor")}
        {field("path", "Path")}
        {field("since", "Since", "2026-01-02T03:04")}
        {field("until", "Until", "2026-01-02T03:04")}
        <button type="submit">Filter</button>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {message && <output class="note">{message}</output>}
      {changes && changes.length === 0 && <p class="muted">No changes.</p>}
      {changes && changes.length > 0 && (
        <table aria-label="Changes" class="changes-table">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Command</th>
              <th scope="col">Path</th>
              {writes && <th scope="col">Roll back</th>}
            </tr>
          </thead>
          <tbody>
            {changes.map((c) => (
              <tr key={c.id}>
                <td>
                  <time dateTime={new Date(c.time).toISOString()} title={exact(c.time)}>
                    {ago(c.time)}
                  </time>
                </td>
                <td class="actor">{c.actor ?? "unnamed"}</td>
                <td>
                  <span class={`command ${c.command}`}>{c.command}</span>
                </td>
                <td class="path">
                  <Shown text={c.path} />
                  {c.newPath !== undefined && (
                    <>
                      {" → "}
                      <Shown text={c.newPath} />
                    </>
                  )}
                </td>
                {writes && (
                  <td>
                    {confirming?.id === c.id ? (
                      <fieldset class="confirm">
                        <legend>
                          Put {filter.by ? `${filter.by}'s files` : "every file"} back as they were at{" "}
                          {exact(c.time)}?
                        </legend>
                        <button type="button" onClick={() => void rollBack(c)}>
                          Yes, roll back
                        </button>
                        <button type="button" onClick={() => setConfirming(undefined)}>
                          Cancel
                        </button>
                      </fieldset>
                    ) : (
                      <button type="button" onClick={() => setConfirming(c)}>
                        Roll back to here…
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {next && (
        <button type="button" onClick={() => void load(next)}>
          More changes
        </button>
      )}
    </section>
  );
}
