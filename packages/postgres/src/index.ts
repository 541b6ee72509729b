export { checkIdentifier, DEFAULT_SCHEMA, DEFAULT_TABLE, MAX_TABLE_LENGTH } from "./names.js";
export { PostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
export { SCHEMA_VERSION, schemaSql } from "./schema.js";
