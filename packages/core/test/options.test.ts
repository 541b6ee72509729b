import { describe, expect, it } from "vitest";
import { checkOptions } from "../src/options.js";

describe("checkOptions", () => {
  it("refuses options that are not an object", () => {
    expect(() => checkOptions("S", null)).toThrow(new TypeError("S: options must be an object, not null"));
    expect(() => checkOptions("S", [])).toThrow(new TypeError("S: options must be an object, not an array"));
    expect(() => checkOptions("S", "x")).toThrow(TypeError);
  });

  it("names the option and what is allowed, never the value", () => {
    const o = checkOptions("S", { a: 1, b: "", c: 1.5, d: "maybe", u: "http://user:secret@host", f: 3 });
    expect(() => o.string("a")).toThrow(new TypeError('S: option "a" must be a string'));
    expect(() => o.string("b", { nonEmpty: true })).toThrow(
      new TypeError('S: option "b" must be a non-empty string'),
    );
    expect(() => o.integer("c", { min: 1 })).toThrow(new TypeError('S: option "c" must be an integer >= 1'));
    expect(() => o.integer("a", { min: 2, max: 9 })).toThrow(
      new TypeError('S: option "a" must be an integer from 2 to 9'),
    );
    expect(() => o.oneOf("d", ["yes", "no"])).toThrow(
      new TypeError('S: option "d" must be one of "yes", "no"'),
    );
    expect(() => o.url("u", ["redis:", "rediss:"])).toThrow(
      new TypeError('S: option "u" must be a redis: or rediss: URL'),
    );
    expect(() => o.url("u", ["redis:"])).not.toThrow(/secret/);
    expect(() => o.function("f")).toThrow(new TypeError('S: option "f" must be a function'));
    expect(() => o.object("a")).toThrow(new TypeError('S: option "a" must be an object'));
    expect(() => o.string("missing")).toThrow(new TypeError('S: option "missing" must be given'));
  });

  it("accepts good values and absent optional ones", () => {
    const o = checkOptions("S", { a: "x", n: 3, u: "rediss://h:1", m: "path", f: () => {}, o: {} });
    o.string("a", { nonEmpty: true, pattern: /^x$/ });
    o.integer("n", { min: 1, max: 3 });
    o.url("u", ["redis:", "rediss:"]);
    o.oneOf("m", ["auto", "path"]);
    o.function("f");
    o.object("o");
    o.string("absent", { optional: true });
    o.integer("absent", { optional: true });
    o.exactlyOne("a", "absent");
  });

  it("wants exactly one of alternatives", () => {
    expect(() => checkOptions("S", {}).exactlyOne("client", "url")).toThrow(
      new TypeError('S: give exactly one of the options "client" or "url"'),
    );
    expect(() => checkOptions("S", { client: {}, url: "x" }).exactlyOne("client", "url")).toThrow(TypeError);
  });
});
