/**
 * Memory paths ↔ the hosted store's paths. `/memories` is the namespace (`""` or a prefix such as
 * `/team`, and for a tenant `…/.mem-tenants/<id>`); `/memories/a/b` is `<namespace>/a/b`.
 */
import { ROOT } from "@mem/core";

/** The API's most segments of a path. */
export const HOSTED_MAX_SEGMENTS = 20;
/** The API's largest content: 100 kB. */
export const HOSTED_MAX_CONTENT_BYTES = 102_400;
/** Where a store keeps its tenants' memories, below its namespace. Core refuses `.mem-` names to users. */
export const TENANTS_DIR = ".mem-tenants";
/** Where a directory rename keeps its journal, below the namespace. */
export const RENAMES_DIR = ".mem-renames";

// Documented: format characters and the line and paragraph separators (controls core refuses already).
const REFUSED = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** True when a name holds a character the API refuses in paths. */
export const refusesName = (name: string): boolean => REFUSED.test(name);

/** Checks a `prefix` option: `""`, or `/`-separated names the API accepts, without a trailing `/`. */
export const checkPrefix = (prefix: unknown): string => {
  if (prefix === undefined) return "";
  if (typeof prefix !== "string") throw new TypeError("prefix must be a string");
  if (prefix === "") return "";
  const segments = prefix.split("/").slice(1);
  const ok =
    prefix.startsWith("/") &&
    prefix.normalize("NFC") === prefix &&
    segments.length < HOSTED_MAX_SEGMENTS &&
    segments.every((s) => s !== "" && s !== "." && s !== ".." && !refusesName(s));
  if (!ok)
    throw new TypeError('prefix must be "" or a path such as "/team" (no trailing slash, at most 19 names)');
  return prefix;
};

export class Namespace {
  /** The store path of `/memories`: `""` for the store's root. */
  readonly base: string;
  /** How many names the namespace itself takes of the API's 20. */
  readonly segments: number;

  constructor(base: string) {
    this.base = base;
    this.segments = base === "" ? 0 : base.split("/").length - 1;
  }

  /** The store path of a canonical memory path. */
  toStore(path: string): string {
    return path === ROOT ? this.base : this.base + path.slice(ROOT.length);
  }

  /** The memory path of a store path inside the namespace, or `null` when it lies outside. */
  fromStore(path: string): string | null {
    if (path === this.base) return ROOT;
    return path.startsWith(`${this.base}/`) ? ROOT + path.slice(this.base.length) : null;
  }

  /** The `path_prefix` that lists what lies below `path` (a canonical memory path). */
  prefixOf(path: string): string {
    return `${this.toStore(path)}/`;
  }

  /** True for a store path of the namespace's own bookkeeping (tenants, rename journals). */
  isBookkeeping(storePath: string): boolean {
    const rest = storePath.slice(this.base.length);
    return rest.startsWith(`/${TENANTS_DIR}/`) || rest.startsWith(`/${RENAMES_DIR}/`);
  }

  tenant(id: string): Namespace {
    return new Namespace(`${this.base}/${TENANTS_DIR}/${id}`);
  }
}
