export { FsStore, type FsStoreOptions } from "./fs-store.js";
export { isReservedName, RESERVED_PREFIX } from "./names.js";
