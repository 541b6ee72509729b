import { turnsDuring } from "@mem/testkit";
import { describe, expect, it } from "vitest";
import { executeCommand, InMemoryStore, LISTING_SLICE, Slices } from "../src/index.js";
import { renderListing, renderListingInSlices } from "../src/listing.js";
import { msg } from "../src/messages.js";
import type { ListEntry, Listing } from "../src/store.js";
import { listingFromFiles, listingFromFilesInSlices } from "../src/tree.js";

const filled = async (count: number): Promise<InMemoryStore> => {
  const store = new InMemoryStore();
  const data = new TextEncoder().encode("x\n");
  for (let i = 0; i < count; i++)
    await store.write(`/memories/d${i % 100}/f${i}.md`, data, { ifAbsent: true });
  return store;
};

// A pseudo-random generator, so that the names below are the same on every run.
const names = (count: number, seed: number): string[] => {
  let state = seed;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state;
  };
  const alphabet = ["a", "B", "z", "~", "é", "\uff5e", "\u{1f600}", "0", "_", "\u00e9"];
  return Array.from({ length: count }, (_, i) => {
    let name = "";
    for (let k = 1 + (next() % 6); k > 0; k--) name += alphabet[next() % alphabet.length];
    return `${name}-${i}`;
  });
};

describe("listings in slices", () => {
  it("lets the event loop run during a view of 10,000 files, about once per slice, and twice as often for 20,000", async () => {
    const small = await filled(10_000);
    const large = await filled(20_000);
    const view = (store: InMemoryStore) => executeCommand(store, { command: "view", path: "/memories" });
    const first = await turnsDuring(() => view(small));
    const second = await turnsDuring(() => view(large));
    expect(first.result.isError).toBe(false);
    expect(first.result.content.split("\n")).toHaveLength(2 + 1000 + 1);
    expect(first.result.content.endsWith(`\n${msg.moreEntries(9_100)}`)).toBe(true);
    // At least one turn per slice of files folded into the listing, whatever the machine's speed.
    expect(first.turns).toBeGreaterThanOrEqual(Math.floor(10_000 / LISTING_SLICE));
    expect(second.turns).toBeGreaterThanOrEqual(Math.floor(20_000 / LISTING_SLICE));
    // Proportional to the listing's size: twice the files, about twice the turns (never a fixed count).
    expect(second.turns).toBeGreaterThanOrEqual(2 * first.turns - 2);
    expect(second.turns).toBeLessThanOrEqual(2 * first.turns + 4);
  });

  it("yields nothing for a small listing", async () => {
    const store = await filled(50);
    const { result, turns } = await turnsDuring(() =>
      executeCommand(store, { command: "view", path: "/memories" }),
    );
    expect(result.isError).toBe(false);
    expect(turns).toBeLessThanOrEqual(1);
  });

  it("builds the same listing as listingFromFiles, and counts its slices", async () => {
    const files = names(3 * LISTING_SLICE + 5, 7).map((name, i) => ({
      path: `/memories/${i % 3 === 0 ? name : `dir${i % 17}/${name}`}`,
      size: i,
    }));
    const { result, turns } = await turnsDuring(() =>
      listingFromFilesInSlices("/memories", files, 2, { countFiles: true }),
    );
    expect(result).toEqual(listingFromFiles("/memories", files, 2, { countFiles: true }));
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it("renders byte for byte what renderListing renders: large flat groups, nested groups, any limit", async () => {
    const flat = names(3_000, 1).map(
      (name, i): ListEntry => ({
        path: `/memories/${name}`,
        kind: i % 7 === 0 ? "directory" : "file",
        size: i,
        depth: 1,
      }),
    );
    const nested = flat
      .filter((entry) => entry.kind === "directory")
      .flatMap((dir, d) =>
        names(d % 5 === 0 ? 700 : 3, d + 11).map(
          (name, i): ListEntry => ({ path: `${dir.path}/${name}`, kind: "file", size: i, depth: 2 }),
        ),
      );
    // An entry whose parent is not in the listing is not in the order either (nor counted).
    const stray: ListEntry = { path: "/memories/absent/x", kind: "file", size: 1, depth: 2 };
    const listing = (entries: ListEntry[], omitted?: number): Listing => ({
      size: 123,
      entries,
      ...(omitted === undefined ? {} : { omitted }),
    });
    for (const entries of [flat, [...flat, ...nested, stray], nested.slice(0, 40)]) {
      for (const limit of [0, 1, 3, 512, 513, 1000, 100_000]) {
        const omitted = limit === 3 ? 7 : undefined;
        const expected = renderListing("/memories", listing([...entries], omitted), limit);
        expect(await renderListingInSlices("/memories", listing([...entries], omitted), limit)).toBe(
          expected,
        );
      }
    }
  });
});

describe("Slices", () => {
  it("makes every task sharing it wait for the turn, so the event loop runs once per slice", async () => {
    const slices = new Slices(64);
    const task = async () => {
      for (let i = 0; i < 1024; i++) await slices.step();
    };
    // Eight tasks at once, as a walk descends into eight directories: 8 × 1024 steps, of which those
    // that wait for a turn spend nothing, are 8192 / (64 + 7) ≈ 115 slices. Were only the task that
    // ends a slice to wait, the loop would turn only once all eight had ended one: about 16 times.
    const { turns } = await turnsDuring(() => Promise.all(Array.from({ length: 8 }, task)));
    expect(turns).toBeGreaterThanOrEqual(100);
    expect(turns).toBeLessThanOrEqual(140);
  });

  it("spends units and says when a slice is complete", () => {
    const slices = new Slices(3);
    expect([1, 1, 1, 1, 1, 1].map(() => slices.spend())).toEqual([false, false, true, false, false, true]);
    expect(slices.spend(5)).toBe(true);
  });
});
