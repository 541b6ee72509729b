import { executeCommand, isStoreError, type MemoryStore, type ToolResult } from "@mem/core";
import fc from "fast-check";
import { NOT_ALLOWED_INFIX, OUTSIDE_SUFFIX } from "../golden/expected.js";
import {
  anyInput,
  COMMANDS,
  forbiddenPath,
  inputOnSeededFiles,
  inputWithPath,
  outsidePath,
} from "../hostile-inputs.js";
import type { ConformanceRunner } from "../runner.js";
import { probePaths, type StoreSnapshot, snapshotStore } from "../store-tree.js";
import type { Harness } from "./harness.js";

const SEED: Readonly<Record<string, string>> = {
  "/memories/notes.md": "one\ntwo\nthree\n",
  "/memories/dir/a.md": "alpha\n",
  "/memories/.hidden": "h\n",
  "/memories/node_modules/pkg.js": "x\n",
};

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The plainly canonical paths an input names, to read them before and after. Anything less plain is
 * never handed to the store directly: only the engine may decide what a hostile path means.
 */
const probesOf = (input: unknown): string[] => {
  if (typeof input !== "object" || input === null) return [];
  const record = input as Record<string, unknown>;
  return ["path", "old_path", "new_path"].flatMap((key) => {
    const raw = record[key];
    if (typeof raw !== "string") return [];
    const path = raw.endsWith("/") ? raw.slice(0, -1) : raw;
    const names = path.split("/").slice(2);
    const plain =
      path.startsWith("/memories/") &&
      names.every((name) => /^[A-Za-z0-9_.-]{1,64}$/.test(name) && !/^\.+$/.test(name));
    return plain ? [path] : [];
  });
};

/**
 * Runs inputs against one store and checks each result: no throw, a well-formed result, and no change
 * at all when the call failed. The picture of the store is kept between calls and only retaken after a
 * call succeeded, so a slow store pays for one picture per call.
 */
class CheckedRunner {
  #baseline: StoreSnapshot | undefined;
  readonly #store: MemoryStore;
  readonly #expect: ConformanceRunner["expect"];

  constructor(store: MemoryStore, expect: ConformanceRunner["expect"]) {
    this.#store = store;
    this.#expect = expect;
  }

  /** Puts back seeded files a successful call removed, so later calls keep meeting real files. */
  async reseed(): Promise<void> {
    const encoder = new TextEncoder();
    for (const [path, text] of Object.entries(SEED)) {
      if ((await this.#store.stat(path)) !== null) continue;
      try {
        await this.#store.write(path, encoder.encode(text), { ifAbsent: true });
      } catch (error) {
        // A successful call may have put a file where a seeded directory was; that is fine.
        if (!isStoreError(error, "NOT_A_DIRECTORY") && !isStoreError(error, "ALREADY_EXISTS")) throw error;
      }
    }
  }

  async run(input: unknown): Promise<ToolResult> {
    const expect = this.#expect;
    const seedProbes = Object.keys(SEED);
    const ownProbes = probesOf(input);
    this.#baseline ??= await snapshotStore(this.#store, seedProbes);
    const ownBefore = await probePaths(this.#store, ownProbes);
    let result: ToolResult;
    try {
      result = await executeCommand(this.#store, input);
    } catch (error) {
      throw new Error(`executeCommand threw for ${JSON.stringify(input)?.slice(0, 200)}: ${String(error)}`);
    }
    expect(typeof result.content).toBe("string");
    expect(typeof result.isError).toBe("boolean");
    expect(LONE_SURROGATE.test(result.content), `result text is well-formed Unicode: ${result.content}`).toBe(
      false,
    );
    if (result.isError) {
      const label = `a failed call changed nothing: ${result.content}`;
      expect(await snapshotStore(this.#store, seedProbes), label).toEqual(this.#baseline);
      expect(await probePaths(this.#store, ownProbes), label).toEqual(ownBefore);
    } else {
      this.#baseline = undefined;
      await this.reseed();
    }
    return result;
  }
}

export function hostileSuite<S extends MemoryStore>(harness: Harness<S>): void {
  const { describe, it, expect } = harness;
  const runs = { numRuns: harness.propertyRuns };

  describe("hostile input", () => {
    it(
      "any JSON input yields a result, never a throw, and a failed call changes nothing",
      () =>
        harness.withStore(async (store) => {
          const runner = new CheckedRunner(store, expect);
          await runner.reseed();
          await fc.assert(
            fc.asyncProperty(anyInput, async (input) => {
              await runner.run(input);
            }),
            runs,
          );
        }),
      harness.timeout,
    );

    it(
      "calls on real files with hostile parameters yield a result, and a failed one changes nothing",
      () =>
        harness.withStore(async (store) => {
          const runner = new CheckedRunner(store, expect);
          await runner.reseed();
          await fc.assert(
            fc.asyncProperty(inputOnSeededFiles, async (input) => {
              await runner.run(input);
            }),
            runs,
          );
        }),
      harness.timeout,
    );

    it(
      "a path with a forbidden segment is refused by every command",
      () =>
        harness.withStore(async (store) => {
          const runner = new CheckedRunner(store, expect);
          await runner.reseed();
          await fc.assert(
            fc.asyncProperty(fc.constantFrom(...COMMANDS), forbiddenPath, async (command, path) => {
              const result = await runner.run(inputWithPath(command, path));
              expect(result.isError).toBe(true);
              expect(result.content.startsWith("Error: The path "), result.content).toBe(true);
              expect(result.content.includes(NOT_ALLOWED_INFIX), result.content).toBe(true);
            }),
            runs,
          );
        }),
      harness.timeout,
    );

    it(
      "a path outside /memories is refused by every command",
      () =>
        harness.withStore(async (store) => {
          const runner = new CheckedRunner(store, expect);
          await runner.reseed();
          await fc.assert(
            fc.asyncProperty(fc.constantFrom(...COMMANDS), outsidePath, async (command, path) => {
              const result = await runner.run(inputWithPath(command, path));
              expect(result.isError).toBe(true);
              expect(result.content.startsWith("Error: The path "), result.content).toBe(true);
              expect(result.content.endsWith(OUTSIDE_SUFFIX), result.content).toBe(true);
            }),
            runs,
          );
        }),
      harness.timeout,
    );
  });
}
