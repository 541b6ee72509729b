import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { memoryScratchDir } from "@mem/testkit";

/**
 * A fresh database path in a directory of its own, in memory-backed storage: SQLite syncs every commit
 * (`synchronous = FULL`), and what these tests check does not depend on the medium.
 */
export const freshPath = (): string => join(memoryScratchDir("mem-sqlite-"), "memory.db");

/** A fresh database path on a disk, for the tests of processes that crash or are killed mid-write. */
export const freshDiskPath = (): string => join(mkdtempSync(join(tmpdir(), "mem-sqlite-")), "memory.db");

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const textOf = (data: Uint8Array | undefined): string | undefined =>
  data === undefined ? undefined : new TextDecoder().decode(data);
