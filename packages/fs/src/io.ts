import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  futimesSync,
  openSync,
  read,
  readSync,
  renameSync,
  type Stats,
  unlinkSync,
  write,
  writeSync,
} from "node:fs";
import { promisify } from "node:util";
import type { Expiry, FileData, Version } from "@mem/core";
import { type Dir, fsyncAsync, syncAll } from "./dir.js";
import { errnoOf, hardLinkRefused, specialFileRefused, symlinkRefused, toStoreFailure } from "./failure.js";
import { tempName } from "./names.js";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_RDONLY, O_NONBLOCK } = constants;

/**
 * Contents up to this size are read and written synchronously: from the page cache that takes
 * microseconds, less than handing the work to the thread pool. Larger ones go through the thread pool
 * in chunks, so that one big file never holds the event loop for long.
 */
const SYNC_IO_BYTES = 1 << 20;
const CHUNK_BYTES = 1 << 20;

const readAsync = promisify(read);
const writeAsync = promisify(write);

/**
 * Creates `path` exclusively (never through a link) with mode exactly 0600 and returns its descriptor.
 * The mode given to `open` is narrowed by the umask, so it is set again explicitly.
 */
export const createPrivateFile = (path: string): number => {
  const fd = openSync(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
  try {
    fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
};

/** Writes all of `data` at the start of the fresh file `fd`. */
export const writeAll = async (fd: number, data: Uint8Array): Promise<void> => {
  let offset = 0;
  while (offset < data.length) {
    const length = Math.min(data.length - offset, CHUNK_BYTES);
    offset +=
      data.length <= SYNC_IO_BYTES
        ? writeSync(fd, data, offset, data.length - offset, offset)
        : (await writeAsync(fd, data, offset, length, offset)).bytesWritten;
  }
};

/**
 * Reads the file `fd` (whose `fstat` is `stats`) to its end. The size is only a hint: the loop goes on
 * until a read returns nothing, so a file that grew meanwhile is still read whole.
 */
export const readAll = async (fd: number, stats: Stats): Promise<Buffer> => {
  const synchronous = stats.size <= SYNC_IO_BYTES;
  // One spare byte, so that the read which finds the end needs no new buffer. Unpooled, so that the
  // bytes handed out never share an ArrayBuffer with unrelated data.
  let buffer = Buffer.allocUnsafeSlow(stats.size + 1);
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      const bigger = Buffer.allocUnsafeSlow(buffer.length * 2);
      buffer.copy(bigger, 0, 0, length);
      buffer = bigger;
    }
    const room = Math.min(buffer.length - length, CHUNK_BYTES);
    const count = synchronous
      ? readSync(fd, buffer, length, buffer.length - length, length)
      : (await readAsync(fd, buffer, length, room, length)).bytesRead;
    if (count === 0) return buffer.subarray(0, length);
    length += count;
  }
};

/** The content hash that serves as version: it changes exactly when the bytes change. */
export const versionOf = (data: Uint8Array): Version => createHash("sha256").update(data).digest("base64url");

/**
 * The bytes just read, with their version computed on first use: a view never asks for it, and
 * hashing a large file costs more than reading it.
 */
const fileData = (data: Uint8Array): FileData => {
  let version: Version | undefined;
  return {
    data,
    get version() {
      version ??= versionOf(data);
      return version;
    },
  };
};

/**
 * `name` in `dir` opened for reading without following a link, with its `fstat`; `null` when nothing is
 * there. O_NONBLOCK: opening a FIFO someone placed here must not wait for a writer.
 */
export const openEntry = (dir: Dir, name: string): { fd: number; stats: Stats } | null => {
  let fd: number;
  try {
    fd = openSync(dir.at(name), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = errnoOf(error);
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    if (code === "ELOOP" || code === "EMLINK") throw symlinkRefused();
    throw toStoreFailure(error);
  }
  try {
    return { fd, stats: fstatSync(fd) };
  } catch (error) {
    closeSync(fd);
    throw toStoreFailure(error);
  }
};

/**
 * The bytes of the regular file open at `fd`; `null` when (with `expiry`) it expired. With `expiry`,
 * reading is an access: the file's modification time becomes now.
 */
export const readOpenFile = async (
  fd: number,
  stats: Stats,
  expiry: Expiry | null,
): Promise<FileData | null> => {
  if (!stats.isFile()) throw specialFileRefused();
  if (stats.nlink > 1) throw hardLinkRefused();
  if (expiry) {
    const now = expiry.now();
    if (expiry.isExpired(stats.mtimeMs, now)) return null;
    const data = await readAll(fd, stats);
    futimesSync(fd, now / 1000, now / 1000);
    return fileData(data);
  }
  return fileData(await readAll(fd, stats));
};

/** The file `name` in `dir`; `null` when nothing or a directory is there, or when the file expired. */
export const readFileIn = async (dir: Dir, name: string, expiry: Expiry | null): Promise<FileData | null> => {
  const entry = openEntry(dir, name);
  if (!entry) return null;
  try {
    return entry.stats.isDirectory() ? null : await readOpenFile(entry.fd, entry.stats, expiry);
  } finally {
    closeSync(entry.fd);
  }
};

/**
 * Write to a reserved temporary name, sync, rename over `name`, then sync the directory (and `alsoSync`,
 * the directories created on the way to it).
 */
export const writeAtomically = async (
  dir: Dir,
  name: string,
  data: Uint8Array,
  alsoSync: readonly Dir[] = [],
  accessedMs?: number,
): Promise<void> => {
  const temp = tempName();
  const fd = createPrivateFile(dir.at(temp));
  let placed = false;
  try {
    try {
      await writeAll(fd, data);
      if (accessedMs !== undefined) futimesSync(fd, accessedMs / 1000, accessedMs / 1000);
      await fsyncAsync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(dir.at(temp), dir.at(name));
    placed = true;
    await syncAll([dir, ...alsoSync]);
  } finally {
    if (!placed) removeQuietly(dir.at(temp));
  }
};

const removeQuietly = (path: string): void => {
  try {
    unlinkSync(path);
  } catch {
    // Best effort: a leftover temporary file is hidden, and recovery removes it.
  }
};
