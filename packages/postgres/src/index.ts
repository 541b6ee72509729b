export { checkIdentifier, MAX_TABLE_LENGTH } from "./names.js";
export { SCHEMA_VERSION, tableSql } from "./schema.js";
export { DEFAULT_TENANT, PostgresStore, type PostgresStoreOptions } from "./store.js";
