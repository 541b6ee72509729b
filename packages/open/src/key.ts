/** The encryption key of `encrypted+` URLs, read from `MEMORY_KEY`. Messages never show key material. */
import { StoreSetupError } from "./errors.js";

/**
 * The key options of `EncryptedStore` (`@mem/encrypted`), spelled out here so that this package's types
 * do not need that optional peer installed.
 */
export interface KeyOptions {
  key?: Uint8Array;
  keyring?: { keys: Record<string, Uint8Array>; active: string };
}

/** The environment variable that holds the key (or keyring). */
export const KEY_VARIABLE = "MEMORY_KEY";

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const KEY_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,15}$/;

/** Decodes one key: base64 of exactly 32 bytes. */
export const decodeKey = (value: string | undefined): Uint8Array => {
  if (value === undefined || value.trim() === "") {
    throw new StoreSetupError(
      `encrypted+ stores need a key: set ${KEY_VARIABLE} to 32 random bytes in base64, e.g. export ${KEY_VARIABLE}=$(openssl rand -base64 32)`,
    );
  }
  const text = value.trim();
  const key = Buffer.from(text, "base64");
  if (!BASE64.test(text) || key.length !== 32) {
    throw new StoreSetupError(`${KEY_VARIABLE} must be base64 of exactly 32 bytes.`);
  }
  return new Uint8Array(key);
};

/**
 * The key options of `EncryptedStore` from `MEMORY_KEY`: either one key (id `default`), or a keyring
 * `id:base64,id:base64,...` whose first key is the active one (writes and `mem rotate` use it; the others
 * only read files still under them).
 *
 * @example
 * ```ts
 * keyOptions("2025:" + newKey + ",default:" + oldKey); // { keyring: { keys: {...}, active: "2025" } }
 * ```
 */
export const keyOptions = (value: string | undefined): KeyOptions => {
  if (value === undefined || !value.includes(":")) return { key: decodeKey(value) };
  const keys: Record<string, Uint8Array> = {};
  let active: string | undefined;
  for (const entry of value.split(",")) {
    const colon = entry.indexOf(":");
    const id = entry.slice(0, colon).trim();
    if (colon < 0 || !KEY_ID.test(id)) {
      throw new StoreSetupError(
        `${KEY_VARIABLE} holds a keyring entry without a valid id: write id:base64,id:base64 with ids of 1-16 of A-Z a-z 0-9 . _ - (not starting with a dot).`,
      );
    }
    if (id in keys) throw new StoreSetupError(`${KEY_VARIABLE} names key id "${id}" twice.`);
    keys[id] = decodeKey(entry.slice(colon + 1));
    active ??= id;
  }
  if (active === undefined) throw new StoreSetupError(`${KEY_VARIABLE} holds no key.`);
  return { keyring: { keys, active } };
};
