/** The store contract's write conditions, checked the same way on every store core ships. */
import { expect } from "vitest";
import { AlreadyExistsError, ConflictError, type MemoryStore, NotADirectoryError } from "../../src/index.js";

const bytes = (s: string) => new TextEncoder().encode(s);

/**
 * `ifAbsent` refuses an existing file or directory, `ifVersion` only the version it names, and a
 * file in the way of a new path is reported as the ancestor that is not a directory.
 */
export async function expectWriteConditions(store: MemoryStore): Promise<void> {
  const { version } = await store.write("/memories/f", bytes("1"), { ifAbsent: true });
  await expect(store.write("/memories/f", bytes("2"), { ifAbsent: true })).rejects.toBeInstanceOf(
    AlreadyExistsError,
  );
  const next = await store.write("/memories/f", bytes("2"), { ifVersion: version });
  expect(next.version).not.toBe(version);
  await expect(store.write("/memories/f", bytes("3"), { ifVersion: version })).rejects.toBeInstanceOf(
    ConflictError,
  );
  await expect(store.write("/memories/g", bytes("3"), { ifVersion: version })).rejects.toBeInstanceOf(
    ConflictError,
  );
  await expect(store.write("/memories/f/x/y", bytes("3"), { ifAbsent: true })).rejects.toEqual(
    new NotADirectoryError("/memories/f/x/y", "/memories/f"),
  );
  await store.write("/memories/d/e", bytes("e"), { ifAbsent: true });
  await expect(store.write("/memories/d", bytes("d"), { ifAbsent: true })).rejects.toBeInstanceOf(
    AlreadyExistsError,
  );
}
