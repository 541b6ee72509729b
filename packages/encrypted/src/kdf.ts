/**
 * Passphrase keys: Argon2id over the passphrase with a random salt that is stored, in the clear, in the
 * inner store next to the data (`.mem-encrypted/kdf`), together with the cost parameters in force when
 * the store was first opened. Every instance over the same data derives the same key.
 */
import { type MemoryStore, updateWithRetry } from "@mem/core";
import { IntegrityError } from "./format.js";
import { KDF_PATH } from "./reserved.js";
import { argon2id } from "./sodium.js";

/** Argon2id cost. Defaults to libsodium's "interactive" level: 2 passes over 64 MiB. */
export interface KdfParams {
  opsLimit: number;
  memLimit: number;
}

export const DEFAULT_KDF: KdfParams = { opsLimit: 2, memLimit: 64 * 1024 * 1024 };

const SALT_BYTES = 16;
const LIMITS = { minOps: 1, maxOps: 64, minMem: 8192, maxMem: 1024 * 1024 * 1024 };

interface KdfRecord extends KdfParams {
  salt: Uint8Array;
}

export const checkKdfParams = (params: KdfParams): KdfParams => {
  const { opsLimit, memLimit } = params;
  if (!Number.isInteger(opsLimit) || opsLimit < LIMITS.minOps || opsLimit > LIMITS.maxOps) {
    throw new RangeError(`kdf.opsLimit must be an integer in [${LIMITS.minOps}, ${LIMITS.maxOps}]`);
  }
  if (!Number.isInteger(memLimit) || memLimit < LIMITS.minMem || memLimit > LIMITS.maxMem) {
    throw new RangeError(
      `kdf.memLimit must be an integer number of bytes in [${LIMITS.minMem}, ${LIMITS.maxMem}]`,
    );
  }
  return { opsLimit, memLimit };
};

const encode = (record: KdfRecord): Uint8Array =>
  new TextEncoder().encode(
    JSON.stringify({
      format: 1,
      algorithm: "argon2id13",
      opsLimit: record.opsLimit,
      memLimit: record.memLimit,
      salt: Buffer.from(record.salt).toString("base64"),
    }),
  );

const decode = (data: Uint8Array): KdfRecord => {
  const bad = new IntegrityError("the key-derivation record is malformed");
  let raw: unknown;
  try {
    raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(data));
  } catch {
    throw bad;
  }
  if (typeof raw !== "object" || raw === null) throw bad;
  const { format, algorithm, opsLimit, memLimit, salt } = raw as Record<string, unknown>;
  if (format !== 1 || algorithm !== "argon2id13" || typeof salt !== "string") throw bad;
  if (typeof opsLimit !== "number" || typeof memLimit !== "number") throw bad;
  const saltBytes = new Uint8Array(Buffer.from(salt, "base64"));
  if (saltBytes.length !== SALT_BYTES) throw bad;
  try {
    return { ...checkKdfParams({ opsLimit, memLimit }), salt: saltBytes };
  } catch {
    throw bad;
  }
};

/**
 * The store's salt and cost, creating them on first use (the first writer wins a race); a reader
 * (`readOnly`) creates nothing and is refused when there is no record to derive its key with.
 */
const kdfRecord = async (
  inner: MemoryStore,
  params: KdfParams,
  random: (n: number) => Uint8Array,
  readOnly: boolean,
) => {
  if (readOnly) {
    const existing = await inner.read(KDF_PATH);
    if (!existing) throw new IntegrityError("the store has no key-derivation record for a passphrase");
    return decode(existing.data);
  }
  let record: KdfRecord | undefined;
  await updateWithRetry(inner, KDF_PATH, (existing) => {
    record = existing ? decode(existing.data) : { ...params, salt: random(SALT_BYTES) };
    return existing ? null : encode(record);
  });
  return record!;
};

/** Derives one 32-byte key per passphrase, all with the store's salt. */
export const derivePassphraseKeys = async (
  inner: MemoryStore,
  passphrases: ReadonlyArray<{ id: string; passphrase: string }>,
  params: KdfParams,
  random: (n: number) => Uint8Array,
  readOnly = false,
): Promise<Map<string, Uint8Array>> => {
  const keys = new Map<string, Uint8Array>();
  if (passphrases.length === 0) return keys;
  const record = await kdfRecord(inner, params, random, readOnly);
  for (const { id, passphrase } of passphrases) {
    keys.set(id, await argon2id(passphrase, record.salt, record.opsLimit, record.memLimit));
  }
  return keys;
};
