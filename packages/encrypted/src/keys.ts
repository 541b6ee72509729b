/**
 * Key configuration: what callers pass, and its checked, normalised form. Nothing here ever puts key
 * bytes or passphrases into a message.
 */

export const KEY_BYTES = 32;

/** A 32-byte key as raw bytes or base64 (standard or URL-safe), or a passphrase stretched with Argon2id. */
export type KeyMaterial = Uint8Array | string | { passphrase: string };

/** Several keys by id; `active` encrypts every write, the others stay available for reading. */
export interface Keyring {
  keys: Readonly<Record<string, KeyMaterial>>;
  active: string;
}

/** Key ids are stored in each file's header: 1–16 ASCII letters, digits, `.`, `_` or `-`, not starting with a dot. */
export const KEY_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,15}$/;

/** The id used when a store is opened with a single `key`. */
export const DEFAULT_KEY_ID = "default";

export type KeySource = { id: string; bytes: Uint8Array } | { id: string; passphrase: string };

const BASE64 = /^(?:[A-Za-z0-9+/]+={0,2}|[A-Za-z0-9_-]+={0,2})$/;

const decodeKey = (id: string, material: KeyMaterial): KeySource => {
  if (material instanceof Uint8Array) {
    if (material.length !== KEY_BYTES) {
      throw new RangeError(`key "${id}" must be ${KEY_BYTES} bytes, got ${material.length}`);
    }
    return { id, bytes: Uint8Array.from(material) };
  }
  if (typeof material === "string") {
    const bytes = BASE64.test(material) ? new Uint8Array(Buffer.from(material, "base64")) : null;
    if (bytes?.length !== KEY_BYTES) {
      throw new RangeError(
        `key "${id}" must be ${KEY_BYTES} bytes encoded as base64; for a passphrase pass { passphrase }`,
      );
    }
    return { id, bytes };
  }
  if (typeof material === "object" && material !== null && typeof material.passphrase === "string") {
    if (material.passphrase.length === 0) throw new RangeError(`the passphrase of key "${id}" is empty`);
    return { id, passphrase: material.passphrase };
  }
  throw new TypeError(`key "${id}" must be a Uint8Array, a base64 string or { passphrase }`);
};

/** Checks the key options and returns the key sources with the active id first. */
export const keySources = (options: { key?: KeyMaterial; keyring?: Keyring }): KeySource[] => {
  if ((options.key === undefined) === (options.keyring === undefined)) {
    throw new TypeError("pass exactly one of `key` and `keyring`");
  }
  if (options.key !== undefined) return [decodeKey(DEFAULT_KEY_ID, options.key)];
  const keyring = options.keyring as Keyring;
  const ids = Object.keys(keyring.keys);
  for (const id of ids) {
    if (!KEY_ID_PATTERN.test(id)) {
      throw new RangeError(`key id "${id}" must be 1-16 of A-Z a-z 0-9 . _ - and not start with a dot`);
    }
  }
  if (!ids.includes(keyring.active)) {
    throw new RangeError(`the active key id "${keyring.active}" is not in the keyring`);
  }
  const ordered = [keyring.active, ...ids.filter((id) => id !== keyring.active)];
  return ordered.map((id) => decodeKey(id, keyring.keys[id] as KeyMaterial));
};
