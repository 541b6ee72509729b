import { spawn } from "node:child_process";
import { randomInt } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FsStore } from "@mem/fs";
import { afterAll, describe, expect, it } from "vitest";
import { HistoryStore } from "../src/index.js";
import { isSealed } from "./fixtures/sealed.js";

const packageDir = dirname(dirname(fileURLToPath(import.meta.url)));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Runs the writer until it has written a few times, then kills it with SIGKILL after a random pause. */
const killMidWrite = (root: string): Promise<NodeJS.Signals | null> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "--conditions=@mem/source",
        "--import",
        "tsx",
        join(packageDir, "test/fixtures/crash-writer.ts"),
        root,
      ],
      { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.once("data", () => setTimeout(() => child.kill("SIGKILL"), randomInt(0, 80)));
    child.once("exit", (_code, signal) => (signal ? resolve(signal) : reject(new Error(stderr))));
  });

describe("HistoryStore over FsStore, killed mid-write", () => {
  it(
    "keeps the file and every kept version whole, and restores after each crash",
    { timeout: 300_000 },
    async () => {
      const base = mkdtempSync(join(tmpdir(), "mem-history-crash-"));
      dirs.push(base);
      const root = join(base, "memories");
      const path = "/memories/f.md";
      for (let round = 0; round < 6; round++) {
        expect(await killMidWrite(root)).toBe("SIGKILL");
        const store = new HistoryStore(new FsStore({ root }), { maxVersions: 10 });
        const current = await store.read(path);
        if (current) expect(isSealed(current.data)).toBe(true);
        const versions = await store.versions(path);
        expect(versions.length).toBeGreaterThan(0);
        for (const { id } of versions) expect(isSealed((await store.readVersion(path, id))!)).toBe(true);

        const [newest] = versions;
        const wanted = await store.readVersion(path, newest!.id);
        await store.restore(path, newest!.id);
        expect((await store.read(path))?.data).toEqual(wanted);
        // The listing shows the file alone: no kept version and no leftover of the killed write.
        expect((await store.list("/memories", 5))?.entries.map((e) => e.path)).toEqual([path]);
        await store.close();
      }
    },
  );
});
