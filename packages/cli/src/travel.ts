/**
 * What travels when a store is backed up, restored or copied: the one definition `mem export`,
 * `mem import`, `mem copy` and `mem verify --against` share.
 *
 * Everything a store holds that its owner would want back travels: every file, hidden ones included,
 * and the files kept under reserved names by `@mem/history` (`.mem-history/`: every version with its
 * actor and time, and the tombstones of redactions) or by an application (a marker such as the demo's
 * `.mem-demo`); with `--all-tenants`, the same for every tenant. Left out, by name, is only bookkeeping
 * that must not travel:
 *
 * - `.mem-encrypted`: the key checks, salt and indexes of `@mem/encrypted`, bound to the store and the
 *   keys they were made for (files travel decrypted; an encrypted target makes its own);
 * - the names an adapter reserves for itself (`isReservedName`): the fs store's `.~mem-` locks and
 *   temporary files, the S3 store's probe objects. `files()` lists none of them; they are refused in
 *   an archive all the same.
 */
import { type MemoryStore, ROOT, type StoredFile, validatePath } from "@mem/core";
import { allTenants as listTenants } from "./commands/tenants.js";
import { CommandError } from "./context.js";
import { enumerateFiles } from "./files.js";

/** Names that never travel, whatever store they are in. */
export const LEFT_OUT_NAMES = [".mem-encrypted"] as const;

const RESERVED = ".mem-";
/** Same length, not reserved: a travelling reserved name is checked as this, for every other rule. */
const STAND_IN = ".Mem-";

const isLeftOut = (name: string, store?: MemoryStore): boolean =>
  LEFT_OUT_NAMES.some((left) => name.startsWith(left)) || store?.isReservedName?.(name) === true;

/** Whether the file at `path` (canonical) travels out of `store`. */
export const travels = (path: string, store?: MemoryStore): boolean =>
  !path
    .slice(ROOT.length + 1)
    .split("/")
    .some((name) => isLeftOut(name, store));

/** The files of `store` that travel, in path order; `complete` as `enumerateFiles` says. */
export const travellingFiles = async (
  store: MemoryStore,
): Promise<{ files: StoredFile[]; complete: boolean }> => {
  const { files, complete } = await enumerateFiles(store);
  return { files: files.filter((f) => travels(f.path, store)), complete };
};

/**
 * A path that came from outside (an archive), checked as a memory path by every rule of SPEC §2 except
 * that reserved names travel; names that never travel are refused. Returns the canonical path or why not.
 */
export const checkTravellingPath = (
  raw: string,
  target?: MemoryStore,
): { ok: true; path: string } | { ok: false; why: string } => {
  const segments = raw.split("/");
  const reserved = new Set<number>();
  const marked = segments.map((segment, i) => {
    if (!segment.startsWith(RESERVED)) return segment;
    reserved.add(i);
    return STAND_IN + segment.slice(RESERVED.length);
  });
  const check = validatePath(marked.join("/"), { isReservedName: target?.isReservedName?.bind(target) });
  if (!check.ok) return { ok: false, why: check.error.replace(/^Error: /, "") };
  const names = check.path
    .split("/")
    .map((name, i) => (reserved.has(i) ? RESERVED + name.slice(STAND_IN.length) : name));
  const left = names.find((name) => isLeftOut(name, target));
  if (left !== undefined) return { ok: false, why: `${left} is bookkeeping that never travels` };
  return { ok: true, path: names.join("/") };
};

/** Whether a path holds a reserved name: such files are written as they are, never through history. */
export const isBookkeepingPath = (path: string): boolean =>
  path.split("/").some((name) => name.startsWith(RESERVED));

/** A file that travels, of the store (`tenant` undefined) or of one of its tenants. */
export interface TravellingFile extends StoredFile {
  tenant?: string;
}

/** The files that travel out of a store opened unwrapped (and with `allTenants`, its tenants'), in order. */
export interface Departure {
  /** The tenants included, in byte order. */
  tenants: string[];
  files: TravellingFile[];
  /** False when a store has no `files()`: hidden files could not be seen. */
  complete: boolean;
  /** The store of `tenant` (`undefined`: the root). */
  store(tenant: string | undefined): MemoryStore;
}

export const departure = async (store: MemoryStore, allTenants: boolean): Promise<Departure> => {
  const own = await travellingFiles(store);
  const files: TravellingFile[] = [...own.files];
  let complete = own.complete;
  const tenants: string[] = [];
  const scopes = new Map<string, MemoryStore>();
  if (allTenants) {
    if (!store.scope)
      throw new CommandError("This store has no tenants (it has no scope()); leave out --all-tenants.");
    for await (const { id } of listTenants(store)) tenants.push(id);
    for (const id of tenants) {
      const scope = store.scope(id);
      scopes.set(id, scope);
      const theirs = await travellingFiles(scope);
      complete &&= theirs.complete;
      for (const file of theirs.files) files.push({ ...file, tenant: id });
    }
  }
  return {
    tenants,
    files,
    complete,
    store: (tenant) => (tenant === undefined ? store : scopes.get(tenant)!),
  };
};
