/** Scratch directories removed after the test file, and file contents as bytes and as text. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

const created: string[] = [];

/** A fresh directory under the system temp dir, removed after the test file. */
export const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "mem-fs-test-"));
  created.push(dir);
  return dir;
};

afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export { bytes } from "./bytes.js";
export const text = (data: Uint8Array | undefined): string | undefined =>
  data === undefined ? undefined : new TextDecoder().decode(data);
