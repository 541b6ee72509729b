/**
 * The on-disk format of one encrypted file (version 1):
 *
 * ```
 * offset  size  field
 *      0     4  magic "MENC"
 *      4     1  format version (1)
 *      5    16  key id, ASCII, zero-padded
 *     21    24  nonce (random per write, from node:crypto)
 *     45   n+16 XChaCha20-Poly1305-IETF ciphertext of the n plaintext bytes, then its tag
 * ```
 *
 * The associated data is the 45 header bytes, the store's context (length-prefixed) and the file's
 * canonical path, so a ciphertext only opens at the path and in the store it was written for, and its
 * header cannot be edited. Every file carries the same 61 bytes of overhead, which is how listings
 * report exact plaintext sizes without decrypting anything.
 */
import { randomFillSync } from "node:crypto";
import { StoreFailureError } from "@mem/core";
import type { Sodium } from "./sodium.js";

const MAGIC = [0x4d, 0x45, 0x4e, 0x43]; // "MENC"
const FORMAT_VERSION = 1;
const KEY_ID_BYTES = 16;
const NONCE_BYTES = 24;
const TAG_BYTES = 16;
const HEADER_BYTES = MAGIC.length + 1 + KEY_ID_BYTES + NONCE_BYTES;

/** Bytes an encrypted file has beyond its plaintext. */
export const OVERHEAD = HEADER_BYTES + TAG_BYTES;

/**
 * A ciphertext failed its authenticity or format check. Core reports it like any storage failure:
 * `Error: {command} failed for {path}: integrity check failed: ...`. Never carries key material.
 */
export class IntegrityError extends StoreFailureError {
  constructor(readonly detail: string) {
    super(`integrity check failed: ${detail}`);
    this.name = "IntegrityError";
  }
}

export const integrityError = (detail: string): IntegrityError => new IntegrityError(detail);

/** The plaintext size of a ciphertext of `size` bytes. */
export const plaintextSize = (size: number): number => {
  if (size < OVERHEAD) throw integrityError("the encrypted file is truncated");
  return size - OVERHEAD;
};

export interface Cipher {
  sodium: Sodium;
  /** Bound into every file's associated data; separates stores that share a key. */
  context: Uint8Array;
  keys: ReadonlyMap<string, Uint8Array>;
  activeId: string;
  /** Set when the store closes and zeroes its keys; operations still in flight must not use them. */
  closed: boolean;
}

const checkOpen = (cipher: Cipher): void => {
  if (cipher.closed) throw new StoreFailureError("the encrypted store is closed");
};

const encoder = new TextEncoder();

const associatedData = (cipher: Cipher, header: Uint8Array, path: string): Uint8Array => {
  const pathBytes = encoder.encode(path);
  const ad = new Uint8Array(header.length + 4 + cipher.context.length + pathBytes.length);
  ad.set(header, 0);
  new DataView(ad.buffer).setUint32(header.length, cipher.context.length);
  ad.set(cipher.context, header.length + 4);
  ad.set(pathBytes, header.length + 4 + cipher.context.length);
  return ad;
};

/** Encrypts `plaintext` for `path` under the active key (or `keyId`). */
export const seal = (
  cipher: Cipher,
  plaintext: Uint8Array,
  path: string,
  keyId = cipher.activeId,
): Uint8Array => {
  checkOpen(cipher);
  const key = cipher.keys.get(keyId);
  if (key === undefined) throw new StoreFailureError(`no key with id "${keyId}" is configured`);
  const header = new Uint8Array(HEADER_BYTES);
  header.set(MAGIC, 0);
  header[MAGIC.length] = FORMAT_VERSION;
  header.set(encoder.encode(keyId), MAGIC.length + 1);
  // Node's CSPRNG (the operating system's generator); a random 192-bit nonce never repeats in practice.
  randomFillSync(header, HEADER_BYTES - NONCE_BYTES, NONCE_BYTES);
  const nonce = header.subarray(HEADER_BYTES - NONCE_BYTES);
  const sealed = cipher.sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
    plaintext,
    associatedData(cipher, header, path),
    null,
    nonce,
    key,
  );
  const out = new Uint8Array(HEADER_BYTES + sealed.length);
  out.set(header, 0);
  out.set(sealed, HEADER_BYTES);
  return out;
};

/** The key id a ciphertext's header names, after checking magic and version. */
export const keyIdOf = (data: Uint8Array): string => {
  if (data.length < OVERHEAD) throw integrityError("the encrypted file is truncated");
  if (!MAGIC.every((byte, i) => data[i] === byte)) {
    throw integrityError("the file is not in the encrypted format");
  }
  const version = data[MAGIC.length];
  if (version !== FORMAT_VERSION) throw integrityError(`unsupported format version ${version}`);
  const field = data.subarray(MAGIC.length + 1, MAGIC.length + 1 + KEY_ID_BYTES);
  const end = field.indexOf(0);
  const idBytes = end === -1 ? field : field.subarray(0, end);
  if (idBytes.length === 0 || field.subarray(idBytes.length).some((b) => b !== 0)) {
    throw integrityError("the key id in the header is malformed");
  }
  const id = String.fromCharCode(...idBytes);
  if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(id))
    throw integrityError("the key id in the header is malformed");
  return id;
};

/** Decrypts a ciphertext written for `path`; any tampering, move or key mismatch throws `integrityError`. */
export const open = (cipher: Cipher, data: Uint8Array, path: string): Uint8Array => {
  checkOpen(cipher);
  const keyId = keyIdOf(data);
  const key = cipher.keys.get(keyId);
  if (key === undefined)
    throw integrityError(`the file is encrypted under key id "${keyId}", which is not configured`);
  const header = data.subarray(0, HEADER_BYTES);
  const nonce = header.subarray(HEADER_BYTES - NONCE_BYTES);
  let plain: Uint8Array;
  try {
    plain = cipher.sodium.crypto_aead_xchacha20poly1305_ietf_decrypt(
      null,
      data.subarray(HEADER_BYTES),
      associatedData(cipher, header, path),
      nonce,
      key,
    );
  } catch {
    throw integrityError(
      `the ciphertext does not authenticate (it was altered, moved from another path, or encrypted under a different key for id "${keyId}")`,
    );
  }
  return plain;
};
