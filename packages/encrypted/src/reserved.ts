/** Names and paths this wrapper keeps for its own bookkeeping inside the inner store. */
import { randomBytes } from "node:crypto";
import { parentOf, ROOT } from "@mem/core";

/** Every name starting with this is reserved (and, starting with a dot, hidden from listings). */
export const RESERVED_PREFIX = ".mem-encrypted";

/** Directory at the root holding the key-derivation parameters, key checks and the unlisted-file index. */
export const BOOKKEEPING_DIR = `${ROOT}/${RESERVED_PREFIX}`;
export const KDF_PATH = `${BOOKKEEPING_DIR}/kdf`;
/** Every unlisted (hidden or `node_modules`) path written through the wrapper; see `filesBeneath` in unlisted.ts. */
export const UNLISTED_INDEX_PATH = `${BOOKKEEPING_DIR}/unlisted`;
/** Renames whose files are not yet all re-encrypted for their new paths; see `EncryptedStore.rename`. */
export const RENAME_JOURNAL_PATH = `${BOOKKEEPING_DIR}/renames`;
export const keyCheckPath = (keyId: string): string => `${BOOKKEEPING_DIR}/keys/${keyId}`;

export const isOwnReservedName = (name: string): boolean => name.startsWith(RESERVED_PREFIX);

/**
 * A fresh hidden name next to `path`, where a file rename parks the source once its copy exists: the
 * inner store's rename to it is what lets only one of two concurrent renames of a file succeed.
 */
export const claimPath = (path: string): string =>
  `${parentOf(path)}/${RESERVED_PREFIX}-moving-${randomBytes(8).toString("hex")}`;
