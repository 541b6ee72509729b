import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { goldenFiles, searchGoldenFiles } from "../src/golden/transcripts.generated.js";
import { loadGoldenTranscripts } from "../src/index.js";

const golden = new URL("../golden/", import.meta.url);

describe("the embedded golden transcripts", () => {
  it("are golden/*.json as they stand (after adding or editing one: npx -y pnpm@10 --filter @mem/conformance generate)", () => {
    const onDisk = readdirSync(golden)
      .filter((file) => file.endsWith(".json"))
      .sort()
      .map((file) => [file, readFileSync(new URL(file, golden), "utf8")]);
    expect(goldenFiles.map(([file]) => file)).toEqual(onDisk.map(([file]) => file));
    expect(goldenFiles).toEqual(onDisk);
    const search = new URL("search/", golden);
    const searchOnDisk = readdirSync(search)
      .filter((file) => file.endsWith(".json"))
      .sort()
      .map((file) => [file, readFileSync(new URL(file, search), "utf8")]);
    expect(searchOnDisk.length).toBeGreaterThan(0);
    expect(searchGoldenFiles).toEqual(searchOnDisk);
  });

  it("load without a directory exactly as the directory loads", () => {
    const embedded = loadGoldenTranscripts();
    expect(embedded.length).toBe(goldenFiles.length);
    expect(embedded).toEqual(loadGoldenTranscripts(golden.pathname));
  });
});
