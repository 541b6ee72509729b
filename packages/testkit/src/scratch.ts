import { accessSync, constants, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SHM = "/dev/shm";

/**
 * A folder for test data whose durability is not what the test checks: memory-backed (`/dev/shm`) where
 * the machine has one, so the fsyncs a store makes on every write cost microseconds instead of a disk
 * flush; the system's temporary folder elsewhere. Tests of what survives a crash or a kill keep their
 * files on a disk (`os.tmpdir()`).
 */
export const memoryTmpdir = (): string => {
  try {
    if (!statSync(SHM).isDirectory()) return tmpdir();
    accessSync(SHM, constants.W_OK);
    return SHM;
  } catch {
    return tmpdir();
  }
};

/** A new, empty folder under `memoryTmpdir()` whose name starts with `prefix`. */
export const memoryScratchDir = (prefix: string): string => mkdtempSync(join(memoryTmpdir(), prefix));
