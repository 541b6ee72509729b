export type { HistoryEvent, VersionInfo } from "./events.js";
export { type HistoryOptions, HistoryStore, RedactedVersionError } from "./history-store.js";
export { HISTORY_MARKER, HISTORY_NAME } from "./layout.js";
