import { executeCommand, NotFoundError, StoreFailureError } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RedactedVersionError } from "../src/index.js";
import { type Hosted, startHosted } from "./helpers.js";

let hosted: Hosted;
beforeAll(async () => {
  hosted = await startHosted();
});
afterAll(() => hosted.server.close());

const text = (data: Uint8Array | null | undefined) => new TextDecoder().decode(data ?? undefined);

describe("versions through the history interface", () => {
  it("lists versions newest first with the API's actor and operation, reads, restores and redacts them", async () => {
    const store = hosted.store();
    const agent = hosted.store({ memoryStoreId: store.memoryStoreId, key: "session-key" });
    await executeCommand(store, { command: "create", path: "/memories/v", file_text: "one\n" });
    await executeCommand(agent, {
      command: "str_replace",
      path: "/memories/v",
      old_str: "one",
      new_str: "two",
    });
    await executeCommand(store, {
      command: "str_replace",
      path: "/memories/v",
      old_str: "two",
      new_str: "three",
    });

    const versions = await store.versions("/memories/v");
    expect(versions.map((v) => [v.command, v.size])).toEqual([
      ["modified", 4],
      ["created", 4],
    ]);
    expect(versions[0]?.actor).toBe("sesn_agent");
    expect(versions[1]?.actor).toMatch(/^apikey_/);
    expect(versions[0]?.time).toBeGreaterThan(0);

    expect(text(await store.readVersion("/memories/v", versions[1]?.id as string))).toBe("one\n");
    expect(await store.readVersion("/memories/v", "memver_nope")).toBeNull();
    expect(await store.readVersion("/memories/elsewhere", versions[1]?.id as string)).toBeNull();

    const { replacedVersionId } = await store.restore("/memories/v", versions[1]?.id as string);
    expect(text((await store.read("/memories/v"))?.data)).toBe("one\n");
    const after = await store.versions("/memories/v");
    expect(after).toHaveLength(3);
    // The restore is itself an update: the content it replaced is a version, so it can be undone.
    expect(after[0]?.id).toBe(replacedVersionId);
    expect(text(await store.readVersion("/memories/v", replacedVersionId as string))).toBe("three\n");

    await store.redact("/memories/v", versions[1]?.id as string);
    const redacted = (await store.versions("/memories/v")).find((v) => v.id === versions[1]?.id);
    expect(redacted).toMatchObject({ size: 0, redacted: { by: expect.stringMatching(/^apikey_/) } });
    await expect(store.readVersion("/memories/v", versions[1]?.id as string)).rejects.toBeInstanceOf(
      RedactedVersionError,
    );
    await expect(store.redact("/memories/v", "memver_nope")).rejects.toBeInstanceOf(NotFoundError);
  });

  it("refuses to redact the current content, and keeps the versions of a deleted file findable by path", async () => {
    const store = hosted.store();
    await executeCommand(store, { command: "create", path: "/memories/gone", file_text: "a" });
    const current = hosted.server.model.store(store.memoryStoreId).versions[0]?.id as string;
    await expect(store.redact("/memories/gone", current)).rejects.toBeInstanceOf(StoreFailureError);
    await executeCommand(store, { command: "delete", path: "/memories/gone" });
    const versions = await store.versions("/memories/gone");
    expect(versions.map((v) => v.command)).toEqual(["deleted", "created"]);
    expect(text(await store.readVersion("/memories/gone", current))).toBe("a");
    await store.restore("/memories/gone", current);
    expect(text((await store.read("/memories/gone"))?.data)).toBe("a");
  });
});

describe("tenants are prefixes of one hosted store", () => {
  it("purge deletes the tenant's memories and redacts their versions; only version metadata remains", async () => {
    const root = hosted.store();
    const a = root.scope("acme");
    const b = root.scope("beta");
    await executeCommand(a, { command: "create", path: "/memories/secret", file_text: "acme data" });
    await executeCommand(a, {
      command: "str_replace",
      path: "/memories/secret",
      old_str: "acme",
      new_str: "ACME",
    });
    await executeCommand(b, { command: "create", path: "/memories/keep", file_text: "beta data" });
    expect((await root.tenants()).tenants.map((t) => t.id)).toEqual(["acme", "beta"]);
    expect(await a.purge({ dryRun: true })).toEqual({ files: 1, bytes: 9 });
    expect(await a.purge()).toEqual({ files: 1, bytes: 9, versions: 3 });
    const model = hosted.server.model.store(root.memoryStoreId);
    expect([...model.paths.keys()]).toEqual(["/.mem-tenants/beta/keep"]);
    const left = JSON.stringify(model.versions.filter((v) => v.path === null));
    expect(left).not.toContain("acme");
    expect(left).not.toContain("ACME");
    expect(model.versions.filter((v) => v.redacted_at !== null)).toHaveLength(3);
    expect((await root.tenants()).tenants.map((t) => t.id)).toEqual(["beta"]);
    expect(await a.purge()).toEqual({ files: 0, bytes: 0, versions: 0 });
    await expect(root.purge()).rejects.toThrow(TypeError);
  });
});
