import {
  closeSync,
  constants,
  fchmodSync,
  openSync,
  read,
  readSync,
  type Stats,
  write,
  writeSync,
} from "node:fs";
import { promisify } from "node:util";

const { O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = constants;

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
