/** What every command gets: the streams, the environment, styles, progress bars and store opening. */
import type { MemoryStore } from "@mem/core";
import { labelled, markError } from "./labels.js";
import { mountsFileOf } from "./mounts-option.js";
import { StoreSetupError, StoreUrlError } from "./store-url/errors.js";
import { type OpenStoreOptions, openMounts, openStore } from "./store-url/open.js";
import { describeStore, parseStoreUrl } from "./store-url/parse.js";
import { createStyle, type Style, useColor } from "./style.js";

export interface Stream {
  write(chunk: string | Uint8Array): unknown;
  isTTY?: boolean;
}

export interface Io {
  stdout: Stream;
  stderr: Stream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** A failure the command reports in one line, with its exit code (1: failed, 2: usage). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CommandError";
  }
}

export interface Context {
  readonly io: Io;
  /** Styles for stdout; plain when it is not a terminal or NO_COLOR is set. */
  readonly out: Style;
  /** Styles for stderr, by the same rule. */
  readonly err: Style;
  /** The exit code once the command is done; commands raise it for failures they report themselves. */
  exitCode: number;
  print(text: string): void;
  printJson(value: unknown): void;
  /** A line on stderr: progress notes and warnings, never data. */
  note(text: string): void;
  /**
   * Opens `url`, runs `task` and closes the store, whatever happens. Errors of the store are marked with
   * its description (see `labels.ts`). `readOnly`: a store that does not exist is not created (`no store
   * at ...`); `check`: the store's `check()` runs first.
   */
  withStore<T>(url: string, task: (store: MemoryStore) => Promise<T>, options?: WithStoreOptions): Promise<T>;
}

export interface WithStoreOptions
  extends Pick<OpenStoreOptions, "expireAfterSeconds" | "check" | "history" | "bookkeeping"> {
  /** The command only reads: a missing store is an error, never created, and opening it writes nothing. */
  readOnly?: boolean;
  /** The command changes only a store that exists: a missing store is an error, never created. */
  existing?: boolean;
}

export const createContext = (io: Io): Context => ({
  io,
  out: createStyle(useColor(io.stdout, io.env)),
  err: createStyle(useColor(io.stderr, io.env)),
  exitCode: 0,
  print(text) {
    io.stdout.write(`${text}\n`);
  },
  printJson(value) {
    io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  },
  note(text) {
    io.stderr.write(`${text}\n`);
  },
  async withStore(url, task, options = {}) {
    const { readOnly, existing, ...open } = options;
    const mounts = mountsFileOf(url);
    const what = mounts === undefined ? describeStore(parseStoreUrl(url)) : `mount table ${mounts}`;
    const opening = {
      ...open,
      ...(readOnly && { readOnly: true }),
      ...(existing && { create: false }),
      env: io.env,
      cwd: io.cwd,
    };
    let store: MemoryStore;
    try {
      store = await (mounts === undefined ? openStore(url, opening) : openMounts(mounts, opening));
    } catch (error) {
      // These two already say which store; anything else (a driver, a constructor) gets it named.
      if (!(error instanceof StoreUrlError || error instanceof StoreSetupError)) markError(error, what);
      throw error;
    }
    try {
      return await task(labelled(store, what));
    } finally {
      await store.close?.().catch((error: unknown) => {
        markError(error, what);
        throw error;
      });
    }
  },
});
