/**
 * The console's built page (`@mem/console`'s `vite build`): copied into this package's `dist/console` when
 * it is built, read from the workspace's `packages/console/dist` when running from sources.
 */
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const CANDIDATES = ["../console/", "../../../console/dist/"];

/** The directory holding `index.html` and `assets/`, or `undefined` when the console was never built. */
export const findAssets = (): string | undefined => {
  for (const relative of CANDIDATES) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(`${dir}index.html`)) return dir;
  }
  return undefined;
};

const TYPES: Record<string, string> = {
  html: "text/html; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  ico: "image/x-icon",
};

/** Only names the build produces: no `..`, no hidden files, nothing outside the directory. */
const ASSET = /^\/(?:assets\/)?[A-Za-z0-9_-][A-Za-z0-9_.-]*\.(html|js|css|svg|png|ico)$/;

export interface Asset {
  readonly type: string;
  readonly body: Buffer;
}

/** Serves the built files from memory, read once. */
export class Assets {
  readonly #cache = new Map<string, Asset | null>();
  readonly #dir: string;

  constructor(dir: string) {
    this.#dir = dir;
  }

  get(urlPath: string): Asset | undefined {
    const path = urlPath === "/" ? "/index.html" : urlPath;
    const match = ASSET.exec(path);
    if (!match) return undefined;
    let asset = this.#cache.get(path);
    if (asset === undefined) {
      try {
        asset = { type: TYPES[match[1] as string] as string, body: readFileSync(this.#dir + path.slice(1)) };
      } catch {
        asset = null;
      }
      this.#cache.set(path, asset);
    }
    return asset ?? undefined;
  }
}
