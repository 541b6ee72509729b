// Store URLs live in @mem/open (registerScheme and the rest of its API are there); the names this package
// exported before that package existed are exported here still.
export {
  type Backend,
  DEFAULT_PREFIX,
  decodeKey,
  describeStore,
  type FsSpec,
  KEY_VARIABLE,
  keyOptions,
  maskUrl,
  NoStoreError,
  type OpenContext,
  type OpenStoreOptions,
  openStore,
  type PlainStoreSpec,
  type PostgresSpec,
  parseStoreUrl,
  type RedisSpec,
  type S3Spec,
  STORE_URL_FORMS,
  StoreSetupError,
  type StoreSpec,
  StoreUrlError,
} from "@mem/open";
export { createStyle, type Style, useColor } from "./style.js";
