export { SCHEMA_VERSION } from "./schema.js";
export { SqliteStore, type SqliteStoreOptions } from "./sqlite-store.js";
