/** The lazy tree: a folder's children load when it opens; keyboard as the WAI-ARIA tree pattern. */
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type Entry } from "./api.js";
import { plain, Shown } from "./shown.js";

interface Node {
  entry: Entry;
  depth: number;
}

interface Props {
  tenant: string | undefined;
  hidden: boolean;
  selected: string | undefined;
  onOpenFile: (path: string) => void;
  refresh: number;
  /** Called once the root's listing is shown. */
  onLoaded?: () => void;
}

export function Tree({ tenant, hidden, selected, onOpenFile, refresh, onLoaded }: Props) {
  const [children, setChildren] = useState<Map<string, Entry[]>>(new Map());
  const [omitted, setOmitted] = useState<Map<string, number>>(new Map());
  const [open, setOpen] = useState<Set<string>>(new Set(["/memories"]));
  const [focused, setFocused] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const limits = useRef(new Map<string, number>());
  const root = useRef<HTMLUListElement>(null);

  const load = async (dir: string) => {
    try {
      const listing = await api.list(tenant, dir, hidden, limits.current.get(dir));
      setChildren((now) => new Map(now).set(dir, listing.entries));
      setOmitted((now) => new Map(now).set(dir, listing.omitted));
      setError(undefined);
      if (dir === "/memories") onLoaded?.();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  // A new tenant, the hidden toggle or a live change: the open folders load again (only those).
  useEffect(() => {
    const dirs = [...open];
    for (const dir of dirs) void load(dir);
  }, [tenant, hidden, refresh]);

  const toggle = (entry: Entry) => {
    const next = new Set(open);
    if (next.has(entry.path)) next.delete(entry.path);
    else {
      next.add(entry.path);
      if (!children.has(entry.path)) void load(entry.path);
    }
    setOpen(next);
  };

  const visible: Node[] = [];
  const walk = (dir: string, depth: number) => {
    for (const entry of children.get(dir) ?? []) {
      visible.push({ entry, depth });
      if (entry.kind === "directory" && open.has(entry.path)) walk(entry.path, depth + 1);
    }
  };
  walk("/memories", 1);

  const focusPath = (path: string) => {
    setFocused(path);
    const item = root.current?.querySelector<HTMLElement>(`[data-path="${CSS.escape(path)}"]`);
    item?.focus();
  };

  const onKey = (event: KeyboardEvent, node: Node, index: number) => {
    const { entry } = node;
    const move = (to: number) => {
      const target = visible[Math.max(0, Math.min(visible.length - 1, to))];
      if (target) focusPath(target.entry.path);
    };
    switch (event.key) {
      case "ArrowDown":
        move(index + 1);
        break;
      case "ArrowUp":
        move(index - 1);
        break;
      case "Home":
        move(0);
        break;
      case "End":
        move(visible.length - 1);
        break;
      case "ArrowRight":
        if (entry.kind === "directory" && !open.has(entry.path)) toggle(entry);
        else if (entry.kind === "directory") move(index + 1);
        break;
      case "ArrowLeft":
        if (entry.kind === "directory" && open.has(entry.path)) toggle(entry);
        else {
          const parent = entry.path.slice(0, entry.path.lastIndexOf("/"));
          if (parent !== "/memories") focusPath(parent);
        }
        break;
      case "Enter":
      case " ":
        if (entry.kind === "directory") toggle(entry);
        else onOpenFile(entry.path);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  const tabStop = focused ?? visible[0]?.entry.path;
  const more = (dir: string) => {
    limits.current.set(dir, (limits.current.get(dir) ?? 200) * 4);
    void load(dir);
  };

  const render = (dir: string, depth: number) =>
    (children.get(dir) ?? []).map((entry) => {
      const index = visible.findIndex((n) => n.entry.path === entry.path);
      const isDir = entry.kind === "directory";
      const expanded = isDir && open.has(entry.path);
      return (
        <li
          key={entry.path}
          role="treeitem"
          aria-label={plain(entry.name)}
          aria-level={depth}
          aria-expanded={isDir ? expanded : undefined}
          aria-selected={selected === entry.path}
          data-path={entry.path}
          tabIndex={tabStop === entry.path ? 0 : -1}
          class={`item ${entry.hidden ? "hidden-name" : ""}`}
          onKeyDown={(e) => {
            if (e.target === e.currentTarget) onKey(e, { entry, depth }, index);
          }}
          onFocus={(e) => {
            if (e.target === e.currentTarget) setFocused(entry.path);
          }}
          onClick={(e) => {
            e.stopPropagation();
            setFocused(entry.path);
            if (isDir) toggle(entry);
            else onOpenFile(entry.path);
          }}
        >
          <span class="row">
            <span class="twisty" aria-hidden="true">
              {isDir ? (expanded ? "▾" : "▸") : ""}
            </span>
            <span class="name">
              <Shown text={entry.name} />
            </span>
            {entry.readOnly && (
              <span class="lock" role="img" aria-label="read-only mount" title="read-only mount">
                🔒
              </span>
            )}
            <span class="size">{entry.size}</span>
          </span>
          {expanded && (
            // biome-ignore lint/a11y/useSemanticElements: the WAI-ARIA tree pattern
            <ul role="group">
              {render(entry.path, depth + 1)}
              {moreButton(entry.path)}
            </ul>
          )}
        </li>
      );
    });

  const moreButton = (dir: string) =>
    (omitted.get(dir) ?? 0) > 0 ? (
      <li role="none" class="more">
        <button
          type="button"
          onClick={(e) => {
            // Inside the folder's treeitem: the click must not reach it (it would close the folder).
            e.stopPropagation();
            more(dir);
          }}
        >
          {omitted.get(dir)} more…
        </button>
      </li>
    ) : null;

  return (
    <div class="tree-panel">
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {/* biome-ignore lint/a11y/noNoninteractiveElementToInteractiveRole: the WAI-ARIA tree pattern */}
      <ul role="tree" aria-label="Memory" ref={root} class="tree">
        {render("/memories", 1)}
        {moreButton("/memories")}
      </ul>
      {children.get("/memories")?.length === 0 && <p class="muted">No files yet.</p>}
    </div>
  );
}
