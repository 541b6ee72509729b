import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { text } from "../src/lua/store.lua.generated.js";

describe("the embedded store script", () => {
  it("is src/lua/store.lua as it stands (after editing it: npx -y pnpm@10 --filter @mem/redis generate)", () => {
    expect(text).toBe(readFileSync(new URL("../src/lua/store.lua", import.meta.url), "utf8"));
  });
});
