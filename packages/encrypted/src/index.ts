export {
  EncryptedStore,
  type EncryptedStoreOptions,
  type RotationOptions,
  type RotationReport,
} from "./encrypted-store.js";
export { IntegrityError, OVERHEAD } from "./format.js";
export { DEFAULT_KDF, type KdfParams } from "./kdf.js";
export { DEFAULT_KEY_ID, type KeyMaterial, type Keyring } from "./keys.js";
