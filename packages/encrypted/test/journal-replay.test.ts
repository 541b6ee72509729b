import { InMemoryStore } from "@mem/core";
import { describe, expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { seed, testKey } from "./helpers.js";

// Documents a limit stated in the README ("Rollback and deletion"): the rename journal authenticates,
// but an older copy of it authenticates too. This test pins the exact behaviour so a change to it is seen.

const KEY = testKey(1);
const JOURNAL = "/memories/.mem-encrypted/renames";
const text = (data: Uint8Array | undefined) => (data ? new TextDecoder().decode(data) : undefined);

describe("a rename journal put back after its rename finished", () => {
  it("lets a ciphertext of a path under `from` open at the same path under `to`, and recovery keeps it", async () => {
    const inner = new InMemoryStore();
    const store = new EncryptedStore(inner, { key: KEY });
    await seed(store, { "/memories/d/a.md": "alpha\n" });

    // Someone with write access to the inner storage keeps a copy of the journal during a rename.
    let kept: Uint8Array | undefined;
    const rename = inner.rename.bind(inner);
    inner.rename = async (from, to) => {
      kept ??= (await inner.read(JOURNAL))?.data;
      return rename(from, to);
    };
    await store.rename("/memories/d", "/memories/e");
    expect(kept).toBeDefined();
    expect(text((await store.read(JOURNAL))?.data)).toBe("[]");

    // Later, the model edits the moved file and creates a new file at the old path.
    await store.write("/memories/e/a.md", new TextEncoder().encode("edited\n"), {
      ifVersion: (await inner.read("/memories/e/a.md"))!.version,
    });
    await seed(store, { "/memories/d/a.md": "planted\n" });

    // Without the journal, the copied ciphertext is refused at its new path...
    const planted = (await inner.read("/memories/d/a.md"))!.data;
    await inner.write("/memories/e/a.md", planted, {
      ifVersion: (await inner.read("/memories/e/a.md"))!.version,
    });
    await expect(store.read("/memories/e/a.md")).rejects.toMatchObject({
      reason: expect.stringMatching(/^integrity check failed: /),
    });

    // ...but with the old journal put back, it opens there, undetected.
    await inner.write(JOURNAL, kept!, { ifVersion: (await inner.read(JOURNAL))!.version });
    expect(text((await store.read("/memories/e/a.md"))?.data)).toBe("planted\n");

    // Recovery (run by every new instance and every rename) then re-encrypts it for its new path: it
    // keeps opening there after the journal is gone.
    await store.recover();
    await inner.delete(JOURNAL);
    const fresh = new EncryptedStore(inner, { key: KEY });
    expect(text((await fresh.read("/memories/e/a.md"))?.data)).toBe("planted\n");
  });
});
