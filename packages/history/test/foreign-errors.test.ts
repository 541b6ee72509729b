import { executeCommand, InMemoryStore } from "@mem/core";
import { withForeignErrors } from "@mem/testkit";
import { describe, expect, it } from "vitest";
import { HistoryStore } from "../src/index.js";

const text = (data: Uint8Array | null | undefined) => (data ? new TextDecoder().decode(data) : null);

// A wrapped store built against another copy of @mem/core throws errors that are not instances of this
// copy's classes; restores racing each other must still be retried, not fail.
describe.each([
  { shape: "look-alike classes", plain: false },
  { shape: "plain objects", plain: true },
])("HistoryStore over a store whose errors are $shape of another core", ({ plain }) => {
  it("retries concurrent restores that lost their race, keeping every replaced content", async () => {
    const codes: string[] = [];
    const inner = withForeignErrors(new InMemoryStore(), { plain, onError: (code) => codes.push(code) });
    const store = new HistoryStore(inner);
    const path = "/memories/notes.md";
    await executeCommand(store, { command: "create", path, file_text: "v0\n" });
    for (let i = 1; i <= 4; i++) {
      await executeCommand(store, { command: "str_replace", path, old_str: `v${i - 1}`, new_str: `v${i}` });
    }
    const versions = await store.versions(path);
    expect(versions).toHaveLength(4);
    const restored = await Promise.all(versions.map((v) => store.restore(path, v.id)));
    expect(codes).toContain("CONFLICT");
    // Each restore replaced some content and kept it as a version; the last one to win left its own.
    expect(restored.every((r) => typeof r.replacedVersionId === "string")).toBe(true);
    const final = text((await store.read(path))?.data);
    expect(["v0\n", "v1\n", "v2\n", "v3\n"]).toContain(final);
    // The four it started with, one per winning restore, and one per attempt that lost after keeping.
    expect((await store.versions(path)).length).toBeGreaterThanOrEqual(8);
  });
});
