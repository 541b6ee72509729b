import {
  loadGoldenTranscripts,
  loadSearchTranscripts,
  playTranscript,
  searchExecutor,
} from "@mem/conformance";
import { InMemoryStore, isStoreError, type StoreFailureError } from "@mem/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOSTED_MAX_CONTENT_BYTES } from "../src/index.js";
import { type Hosted, startHosted } from "./helpers.js";

let hosted: Hosted;
beforeAll(async () => {
  hosted = await startHosted();
});
afterAll(() => hosted.server.close());

const SEEDED = new Error("seeded");

/** The files a transcript seeds, as bytes: played into an in-memory store up to its first step. */
async function seedsOf(transcript: ReturnType<typeof loadGoldenTranscripts>[number]): Promise<Uint8Array[]> {
  const store = new InMemoryStore();
  await playTranscript(store, transcript, () => Promise.reject(SEEDED)).catch((error: unknown) => {
    if (error !== SEEDED) throw error;
  });
  const out: Uint8Array[] = [];
  for (const file of await store.files()) out.push((await store.read(file.path))?.data as Uint8Array);
  return out;
}

const isText = (data: Uint8Array): boolean => {
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(data);
    return true;
  } catch {
    return false;
  }
};

const transcripts = loadGoldenTranscripts();
const holds = async (t: (typeof transcripts)[number]) =>
  (await seedsOf(t)).every((s) => isText(s) && s.byteLength <= HOSTED_MAX_CONTENT_BYTES);
const held = new Set<string>();
for (const t of transcripts) if (await holds(t)) held.add(t.name);

describe("golden transcripts on AnthropicMemoryStore", () => {
  it("holds the seed files of all but the transcripts of images, other bytes and files over 100 kB", async () => {
    let heldOut = 0;
    for (const t of transcripts) {
      if (held.has(t.name)) continue;
      heldOut += 1;
      // Such a file cannot be stored there: a clear error, never a partial write.
      const store = hosted.store();
      const refused = await playTranscript(store, t).catch((error: unknown) => error);
      expect(isStoreError(refused, "STORE_FAILURE"), t.name).toBe(true);
      expect((refused as StoreFailureError).reason).toMatch(
        /^a hosted memory (store holds UTF-8 text only; this file is not UTF-8 text|holds at most 102400 bytes)$/,
      );
    }
    expect(heldOut).toBeLessThan(transcripts.length / 4);
  });

  for (const t of transcripts.filter((t) => held.has(t.name))) {
    it(t.description ? `${t.name}: ${t.description}` : t.name, () => playTranscript(hosted.store(), t));
  }
});

const searches = loadSearchTranscripts();
const heldSearches = new Set<string>();
for (const t of searches) if (await holds(t)) heldSearches.add(t.name);

describe("memory_search transcripts on AnthropicMemoryStore", () => {
  it("holds the seed files of all but the transcripts of other bytes", async () => {
    let heldOut = 0;
    for (const t of searches) {
      if (heldSearches.has(t.name)) continue;
      heldOut += 1;
      const store = hosted.store();
      const refused = await playTranscript(store, t, searchExecutor(store)).catch((error: unknown) => error);
      expect(isStoreError(refused, "STORE_FAILURE"), t.name).toBe(true);
    }
    expect(heldOut).toBeLessThan(searches.length);
  });

  for (const t of searches.filter((t) => heldSearches.has(t.name))) {
    it(`${t.name}: ${t.description}`, async () => {
      const store = hosted.store();
      await playTranscript(store, t, searchExecutor(store));
    });
  }
});
