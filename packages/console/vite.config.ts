import { defineConfig } from "vite";

// Everything the page needs is bundled: no CDN, no fonts, no inline script (the server's CSP forbids it).
export default defineConfig({
  // Relative: the server serves the page under a path of its own, made at each start.
  base: "./",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
