export type { Change, ChangePage, ChangesOptions } from "./change-log.js";
export type { HistoryEvent, VersionInfo } from "./events.js";
export { HistoryStore } from "./history-store.js";
export { HISTORY_MARKER, HISTORY_NAME } from "./layout.js";
export type { HistoryOptions } from "./options.js";
export type { RollbackOptions, RollbackResult } from "./rollback.js";
export { RedactedVersionError } from "./versions.js";
