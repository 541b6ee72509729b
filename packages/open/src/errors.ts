/** The two ways opening a store URL fails, each with a message fit for a terminal and free of secrets. */

/** The URL itself is wrong: unknown scheme, bad bucket name, stray option... */
export class StoreUrlError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StoreUrlError";
  }
}

/** The URL is fine but the store cannot be set up: no key, bad key, adapter not installed, no scopes. */
export class StoreSetupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreSetupError";
  }
}

/** The store does not exist (an `fs:` directory that is missing) and was opened with `create: false`. */
export class NoStoreError extends StoreSetupError {
  constructor(where: string) {
    super(`no store at ${where}`);
    this.name = "NoStoreError";
  }
}
