export { type AdapterPackage, importAdapter } from "./adapter.js";
export type { AnthropicSpec } from "./anthropic.js";
export type { Backend, OpenContext } from "./backend.js";
export { DEFAULT_PREFIX } from "./backend.js";
export { NoStoreError, StoreSetupError, StoreUrlError } from "./errors.js";
export type { FsSpec } from "./fs.js";
export { decodeKey, KEY_VARIABLE, type KeyOptions, keyOptions } from "./key.js";
export { maskUrl } from "./mask.js";
export {
  type MountFileEntry,
  type OpenMountsOptions,
  openMounts,
  parseMountTable,
  TENANT_PLACEHOLDER,
} from "./mounts.js";
export { type OpenStoreOptions, openStore } from "./open.js";
export {
  describeStore,
  parseStoreUrl,
  STORE_URL_FORMS,
  type StoreSpec,
  storeUrlForms,
} from "./parse.js";
export type { PostgresSpec } from "./postgres.js";
export type { RedisSpec } from "./redis.js";
export {
  type PlainStoreSpec,
  type RegisteredSpec,
  registerScheme,
  type SchemeFactory,
  type SchemeOptions,
} from "./registry.js";
export type { S3Spec } from "./s3.js";
export type { SqliteSpec } from "./sqlite.js";
export { countStore, type StoreCount, withKeptHistory } from "./usage.js";
