/** Stores and a browser for the console's tests. */
import { ForwardingStore, type MemoryStore } from "@mem/core";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll } from "vitest";
import { ensureConsoleBuilt, launch } from "./browser.js";

/** Writes `text` to a new file. */
export const writeText = async (store: MemoryStore, path: string, text: string): Promise<void> => {
  await store.write(path, new TextEncoder().encode(text), { ifAbsent: true });
};

/** A chromium for the test file: launched (the page built) before its tests, closed after them. */
export const useBrowser = (): (() => Browser) => {
  let browser: Browser | undefined;
  beforeAll(async () => {
    ensureConsoleBuilt();
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser as Browser;
};

/** An in-memory store whose reads wait until `open()`, then take a moment each (as a remote store's do). */
export class GatedStore extends ForwardingStore {
  reads = 0;
  #open!: () => void;
  readonly #gate = new Promise<void>((resolve) => {
    this.#open = resolve;
  });
  override async read(path: string) {
    this.reads++;
    await this.#gate;
    await new Promise((resolve) => setTimeout(resolve, 10));
    return super.read(path);
  }
  open(): void {
    this.#open();
  }
}
