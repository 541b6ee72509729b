import { describe, expect, it } from "vitest";
import * as api from "../src/index.js";

describe("@mem/cloudflare exports", () => {
  it("are exactly what the README documents", () => {
    expect(Object.keys(api).sort()).toEqual(["D1Store", "DurableObjectStore", "MemoryObject", "memoryTool"]);
  });
});
