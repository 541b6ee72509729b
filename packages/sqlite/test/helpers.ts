import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh database path in a directory of its own. */
export const freshPath = (): string => join(mkdtempSync(join(tmpdir(), "mem-sqlite-")), "memory.db");

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const textOf = (data: Uint8Array | undefined): string | undefined =>
  data === undefined ? undefined : new TextDecoder().decode(data);
