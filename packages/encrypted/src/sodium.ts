import sodium from "libsodium-wrappers";

export type Sodium = typeof sodium;

/** The standard libsodium build (XChaCha20-Poly1305), initialised once per process. */
export const loadSodium = async (): Promise<Sodium> => {
  await sodium.ready;
  return sodium;
};

/**
 * Argon2id lives only in libsodium's "sumo" build, which is larger; it is loaded on first use, so stores
 * opened with raw keys never pay for it.
 */
export const argon2id = async (
  passphrase: string,
  salt: Uint8Array,
  opsLimit: number,
  memLimit: number,
): Promise<Uint8Array> => {
  const { default: sumo } = await import("libsodium-wrappers-sumo");
  await sumo.ready;
  return sumo.crypto_pwhash(32, passphrase, salt, opsLimit, memLimit, sumo.crypto_pwhash_ALG_ARGON2ID13);
};
