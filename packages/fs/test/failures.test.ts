import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreFailureError } from "@mem/core";
import { describe, expect, it } from "vitest";
import { toStoreFailure } from "../src/failure.js";
import { tempDir } from "./helpers/files.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const NOBODY = 65534;

const expected = {
  read: "failure: permission denied",
  stat: "failure: permission denied",
  list: "failure: permission denied",
  write: "failure: permission denied",
  delete: "failure: permission denied",
  writeElsewhere: "ok",
  view: { content: "Error: view failed for /memories/locked/x: permission denied", isError: true },
};

describe("storage failures", () => {
  it("report permission problems as StoreFailureError with a safe reason", () => {
    const base = tempDir();
    chmodSync(base, 0o755);
    const root = join(base, "memories");
    mkdirSync(join(root, "locked"), { recursive: true, mode: 0o700 });
    writeFileSync(join(root, "locked", "x"), "secret");
    const runAsRoot = process.getuid?.() === 0;
    if (runAsRoot) {
      // Root may enter any directory, so the probe runs as an unprivileged user who owns the root
      // but not `locked`.
      chownSync(root, NOBODY, NOBODY);
      chmodSync(root, 0o700);
    } else {
      chmodSync(join(root, "locked"), 0o000);
    }
    const probe = spawnSync(
      process.execPath,
      [
        "--conditions=@mem/source",
        "--import",
        "tsx",
        join(packageDir, "test", "fixtures", "permission-probe.ts"),
        root,
      ],
      { cwd: packageDir, encoding: "utf8", ...(runAsRoot ? { uid: NOBODY, gid: NOBODY } : {}) },
    );
    chmodSync(join(root, "locked"), 0o700);
    expect(probe.stderr).toBe("");
    expect(JSON.parse(probe.stdout)).toEqual(expected);
    expect(probe.stdout).not.toContain(base);
  });

  it("map system errors to reasons without paths", () => {
    const cases: [string, string][] = [
      ["EACCES", "permission denied"],
      ["ENOSPC", "no space left on device"],
      ["EIO", "input/output error"],
      ["EROFS", "read-only file system"],
      ["EDQUOT", "disk quota exceeded"],
      ["ELOOP", "symbolic link not followed"],
      ["EWEIRD", "file system error (EWEIRD)"],
    ];
    for (const [code, reason] of cases) {
      const error = Object.assign(new Error(`${code}: failed, open '/very/secret/root/a'`), { code });
      const mapped = toStoreFailure(error);
      expect(mapped).toBeInstanceOf(StoreFailureError);
      expect((mapped as StoreFailureError).reason).toBe(reason);
      expect(mapped.message).not.toContain("/very/secret");
    }
  });
});
