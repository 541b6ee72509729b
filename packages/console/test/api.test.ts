import { describe, expect, it } from "vitest";
import { api, query } from "../src/api.js";

describe("the console's API addresses", () => {
  it("leave out unset, false and empty parameters, and send true as 1", () => {
    expect(query({})).toBe("");
    expect(query({ tenant: undefined, hidden: false, q: "" })).toBe("");
    expect(query({ path: "/memories", hidden: true, limit: 200 })).toBe(
      "?path=%2Fmemories&hidden=1&limit=200",
    );
  });

  it("encode what the model wrote, so a path or a search never changes the request", () => {
    expect(query({ path: "/memories/a&b=c #1?.md", q: "100% + ü" })).toBe(
      "?path=%2Fmemories%2Fa%26b%3Dc+%231%3F.md&q=100%25+%2B+%C3%BC",
    );
    expect(new URLSearchParams(query({ path: "/memories/a&b=c #1?.md" })).get("path")).toBe(
      "/memories/a&b=c #1?.md",
    );
  });

  it("name the tenant only when there is one, for the live feed and the export, relative to the page", () => {
    // Relative: the server serves the page under a path it picks at each start.
    expect(api.eventsUrl(undefined)).toBe("api/events");
    expect(api.eventsUrl("user-42")).toBe("api/events?tenant=user-42");
    expect(api.exportUrl("a.b_c")).toBe("api/export?tenant=a.b_c");
  });
});
