/**
 * The built page keeps the README's promises: everything it needs is bundled (no request leaves the
 * machine), and no script is inline (the server's Content-Security-Policy forbids it).
 */
import { build, type Rollup } from "vite";
import { beforeAll, expect, it } from "vitest";

let files: Map<string, string>;

beforeAll(async () => {
  // The package's own vite.config.ts, built in memory: nothing is written to dist/.
  const result = (await build({ logLevel: "silent", build: { write: false } })) as Rollup.RollupOutput;
  files = new Map(
    result.output.map((file) => [file.fileName, file.type === "chunk" ? file.code : String(file.source)]),
  );
}, 120_000);

it("loads one script and one stylesheet from its own assets/ (relative: the server picks the path), and no inline script", () => {
  const html = files.get("index.html") ?? "";
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  expect(scripts).toHaveLength(1);
  for (const [, attributes, body] of scripts) {
    expect(attributes).toMatch(/\bsrc="\.\/assets\/[\w.-]+\.js"/);
    expect(body?.trim()).toBe("");
  }
  const links = [...html.matchAll(/<link\b[^>]*\bhref="([^"]*)"/g)].map(([, href]) => href);
  expect(links).toEqual(["./favicon.svg", expect.stringMatching(/^\.\/assets\/[\w.-]+\.css$/)]);
  expect(html).not.toMatch(/\son\w+=/);
  for (const name of [...files.keys()].filter((n) => n !== "index.html" && n !== "favicon.svg")) {
    expect(name).toMatch(/^assets\/[\w.-]+\.(js|css)$/);
  }
});

it("names no other address: the only absolute URLs in the bundle are XML namespaces, never fetched", () => {
  const namespaces = new Set([
    "http://www.w3.org/1998/Math/MathML",
    "http://www.w3.org/1999/xhtml",
    "http://www.w3.org/2000/svg",
  ]);
  for (const [name, text] of files) {
    const urls = [...text.matchAll(/\b(?:https?:)?\/\/[\w.-]+\.[a-z]{2,}[^\s"'`)]*/gi)].map(([url]) => url);
    expect(
      urls.filter((url) => !namespaces.has(url)),
      name,
    ).toEqual([]);
    if (name.endsWith(".css")) expect(text).not.toMatch(/@import|url\(/);
  }
});
