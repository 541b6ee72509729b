/** The view command: a file (text or image), a `view_range` of one, or a directory's listing. */
import type { ToolResult } from "./execute.js";
import { isImagePath, renderImage } from "./image.js";
import { renderListingInSlices } from "./listing.js";
import { msg } from "./messages.js";
import type { MemoryStore, Stat } from "./store.js";
import { ROOT } from "./tree.js";
import { MAX_LINES, renderFile, renderLines, windowOf } from "./view.js";

/** The limits a view applies (see `ExecuteOptions`). */
export interface ViewSettings {
  maxFileBytes: number;
  maxImageBytes: number;
  viewCharLimit: number;
  listLimit: number;
}

const ok = (content: string): ToolResult => ({ content, isError: false });
const fail = (content: string): ToolResult => ({ content, isError: true });

export async function view(
  store: MemoryStore,
  path: string,
  range: [number, number] | undefined,
  settings: ViewSettings,
): Promise<ToolResult> {
  const listOptions = { limit: settings.listLimit };
  if (store.capabilities?.localStat === true && path !== ROOT) {
    const refused = refuseBySize(path, await store.stat(path), range, settings);
    if (refused) return refused;
  }
  if (range && store.readLines && path !== ROOT && !isImagePath(path)) {
    const shown = await viewLines(store, store.readLines, path, range, settings);
    if (shown) return shown;
  }
  if (store.readOrList && path !== ROOT) {
    const found = await store.readOrList(path, 2, listOptions);
    if (!found) return fail(msg.viewMissing(path));
    if (found.kind === "file") return renderView(path, found.file.data, range, settings);
    if (range) return fail(msg.viewRangeOnDirectory());
    return ok(await renderListingInSlices(path, found.listing, settings.listLimit));
  }
  // Files are the common case: one store call answers them.
  const file = path === ROOT ? null : await store.read(path);
  if (file) return renderView(path, file.data, range, settings);
  if (range) return rangeWithoutFile(store, path);
  const listing = await store.list(path, 2, listOptions);
  if (!listing) return fail(msg.viewMissing(path));
  return ok(await renderListingInSlices(path, listing, settings.listLimit));
}

/**
 * A `view_range` of a text file from the store's window of its lines (see `MemoryStore.readLines`);
 * `undefined` when the store cannot answer for this file and view reads it whole.
 */
const viewLines = async (
  store: MemoryStore,
  readLines: NonNullable<MemoryStore["readLines"]>,
  path: string,
  range: [number, number],
  settings: ViewSettings,
): Promise<ToolResult | undefined> => {
  const { from, through } = windowOf(range);
  // Past the line limit the view is refused whatever the window: no need to ask for more lines.
  const window = await readLines.call(store, path, from, Math.min(through, MAX_LINES + 1));
  if (window === undefined) return undefined;
  if (window === null) return rangeWithoutFile(store, path);
  const refused = refuseBySize(path, { kind: "file", size: window.size }, range, settings);
  if (refused) return refused;
  return renderLines(path, window.lines, () => window.text, range, settings.viewCharLimit);
};

/** A `view_range` where no file is: a directory refuses the range, a missing path says so. */
const rangeWithoutFile = async (store: MemoryStore, path: string): Promise<ToolResult> => {
  const stat = path === ROOT ? { kind: "directory" as const } : await store.stat(path);
  return fail(stat?.kind === "directory" ? msg.viewRangeOnDirectory() : msg.viewMissing(path));
};

/** The refusal a view owes a file by its size alone, found before reading it (see `localStat`). */
const refuseBySize = (
  path: string,
  stat: Stat | null,
  range: [number, number] | undefined,
  settings: ViewSettings,
): ToolResult | null => {
  if (stat?.kind !== "file") return null;
  if (isImagePath(path)) {
    if (range || stat.size <= settings.maxImageBytes) return null; // view_range is refused first
    return fail(msg.imageTooLarge(path, stat.size, settings.maxImageBytes));
  }
  return stat.size > settings.maxFileBytes
    ? fail(msg.fileOverLimit(path, stat.size, settings.maxFileBytes))
    : null;
};

/** A file's view: an image by its name, otherwise text within `maxFileBytes`. */
const renderView = (
  path: string,
  data: Uint8Array,
  range: [number, number] | undefined,
  settings: ViewSettings,
): ToolResult => {
  if (isImagePath(path)) return renderImage(path, data, range, settings.maxImageBytes);
  if (data.length > settings.maxFileBytes) {
    return fail(msg.fileOverLimit(path, data.length, settings.maxFileBytes));
  }
  return renderFile(path, data, range, settings.viewCharLimit);
};
