import { defineConfig } from "vite";

// Everything the page needs is bundled: no CDN, no fonts, no inline script (the server's CSP forbids it).
export default defineConfig({
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
