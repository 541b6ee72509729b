export { checkIdentifier, DEFAULT_SCHEMA, DEFAULT_TABLE, MAX_TABLE_LENGTH } from "./names.js";
export type { PostgresStoreOptions } from "./options.js";
export { PostgresStore } from "./postgres-store.js";
export { SCHEMA_VERSION, type SchemaSqlOptions, schemaSql } from "./schema.js";
