export { checkIdentifier, DEFAULT_SCHEMA, DEFAULT_TABLE, MAX_TABLE_LENGTH } from "./names.js";
export { SCHEMA_VERSION, schemaSql } from "./schema.js";
export { PostgresStore, type PostgresStoreOptions } from "./store.js";
