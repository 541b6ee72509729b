/** s3rver, the in-process S3 server behind the proxy, and what the proxy needs of its object store. */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";

export interface S3rverObjectStore {
  getResourcePath(bucket: string, key?: string, resource?: string): string;
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag: string }>;
  getBucket(bucket: string): Promise<unknown>;
  deleteObject(bucket: string, key: string): Promise<void>;
  listObjects(
    bucket: string,
    options: { prefix: string; maxKeys: number },
  ): Promise<{
    objects: { key: string; size: number; lastModifiedDate: Date; metadata: { etag: string } }[];
  }>;
}

export interface S3rverInstance {
  store: S3rverObjectStore;
  run(): Promise<{ port: number }>;
  close(): Promise<void>;
}

type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

// s3rver is CommonJS without type declarations; `require` keeps the import exact under NodeNext.
export const S3rver = createRequire(import.meta.url)("s3rver") as S3rverConstructor;

/** Longest last key segment stored under its own name; longer ones are hashed (file names max 255 bytes). */
const LONGEST_FILE_NAME = 200;
const HASHED = "~long~";

/**
 * Makes s3rver's file-system store accept long object names: a last segment longer than
 * `LONGEST_FILE_NAME` bytes is stored as `~long~{sha256}`, and listings map it back to the key.
 */
export function storeLongNames(store: S3rverObjectStore): void {
  const names = new Map<string, string>();
  const resourcePath = store.getResourcePath.bind(store);
  const onDisk = (key: string): string => {
    const cut = key.lastIndexOf("/") + 1;
    const last = key.slice(cut);
    if (Buffer.byteLength(last) <= LONGEST_FILE_NAME) return key;
    const hashed = HASHED + createHash("sha256").update(last).digest("hex");
    names.set(hashed, last);
    return key.slice(0, cut) + hashed;
  };
  const fromDisk = (key: string): string => {
    const cut = key.lastIndexOf("/") + 1;
    return key.slice(0, cut) + (names.get(key.slice(cut)) ?? key.slice(cut));
  };
  store.getResourcePath = (bucket, key, resource) =>
    resourcePath(bucket, key === undefined ? key : onDisk(key), resource);
  const listObjects = store.listObjects.bind(store);
  store.listObjects = async (bucket, options) => {
    // Hashed names do not start with the prefix's last segment, so list the whole directory and filter.
    const directory = options.prefix.slice(0, options.prefix.lastIndexOf("/") + 1);
    const listed = await listObjects(bucket, { ...options, prefix: directory });
    const objects = listed.objects
      .map((object) => Object.assign(object, { key: fromDisk(object.key) }))
      .filter((object) => object.key.startsWith(options.prefix));
    return { ...listed, objects };
  };
}
