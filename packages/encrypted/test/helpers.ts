import {
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  type MemoryStore,
  StoreFailureError,
  type WriteCondition,
} from "@mem/core";

/** A fixed 32-byte test key derived from a label, so tests can name several distinct keys. */
export const testKey = (label: number): Uint8Array =>
  Uint8Array.from({ length: 32 }, (_, i) => (i * 7 + label) & 0xff);

/** Minimal Argon2id cost, so passphrase tests stay fast. */
export const FAST_KDF = { opsLimit: 1, memLimit: 8192 };

export const run = (store: MemoryStore, input: Record<string, unknown>) => executeCommand(store, input);

/** Creates the files through the tool and fails the test if any create fails. */
export const seed = async (store: MemoryStore, files: Record<string, string>): Promise<void> => {
  for (const [path, text] of Object.entries(files)) {
    const result = await run(store, { command: "create", path, file_text: text });
    if (result.isError) throw new Error(`seeding ${path} failed: ${result.content}`);
  }
};

/**
 * Delegates to another store and fails every mutation after the first `allowed` ones, as a crash or an
 * outage would in the middle of a multi-step operation.
 */
export class InterruptingStore extends ForwardingStore {
  mutationsLeft = Number.POSITIVE_INFINITY;
  /** Runs after each successful write, e.g. to make another writer act at that exact moment. */
  afterWrite: ((path: string) => Promise<void>) | undefined;
  /** Runs after each successful rename. */
  afterRename: ((from: string, to: string) => Promise<void>) | undefined;

  constructor(inner: MemoryStore = new InMemoryStore()) {
    super(inner);
  }

  interruptAfter(mutations: number): void {
    this.mutationsLeft = mutations;
  }

  heal(): void {
    this.mutationsLeft = Number.POSITIVE_INFINITY;
  }

  #mutate(): void {
    if (this.mutationsLeft <= 0) throw new StoreFailureError("connection reset");
    this.mutationsLeft--;
  }

  override async write(path: string, data: Uint8Array, condition: WriteCondition) {
    this.#mutate();
    const result = await this.inner.write(path, data, condition);
    await this.afterWrite?.(path);
    return result;
  }
  override async delete(path: string): Promise<boolean> {
    this.#mutate();
    return this.inner.delete(path);
  }
  override async rename(from: string, to: string): Promise<void> {
    this.#mutate();
    await this.inner.rename(from, to);
    await this.afterRename?.(from, to);
  }
}

/** The key id named in an encrypted file's header (bytes 5..21, zero-padded). */
export const headerKeyId = (data: Uint8Array): string =>
  String.fromCharCode(...data.subarray(5, 21).filter((b) => b !== 0));
