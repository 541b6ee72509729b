/**
 * Every request of the store goes through `Requests.send`: the SDK's own retries are turned off (it would
 * retry a 409 precondition failure as a lock timeout, and hide a lost answer), and temporary failures
 * are retried here, remembering whether an earlier attempt may have been applied.
 */
import type Anthropic from "@anthropic-ai/sdk";
import type { BetaManagedAgentsMemory } from "@anthropic-ai/sdk/resources/beta/memory-stores/memories.js";
import type {
  BetaManagedAgentsMemoryVersion,
  MemoryVersionListParams,
} from "@anthropic-ai/sdk/resources/beta/memory-stores/memory-versions.js";
import { backoffDelay, sleep } from "@mem/core";
import { isConnectionError, isRetryable, statusOf, toStoreFailure } from "./failure.js";

export type Memory = BetaManagedAgentsMemory;
export type MemoryVersion = BetaManagedAgentsMemoryVersion;

/** A request that failed for good, with whether an earlier attempt of it may have been applied. */
export class RequestFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly uncertain: boolean,
  ) {
    super("request failed");
    this.name = "RequestFailure";
  }
  get status(): number | undefined {
    return statusOf(this.cause);
  }
}

/** One request: the SDK call, given the request options to pass on. */
export type Attempt<T> = (options: { maxRetries: 0 }) => Promise<T>;

const NO_SDK_RETRIES = { maxRetries: 0 } as const;

export class Requests {
  readonly client: Anthropic;
  readonly storeId: string;
  readonly #attempts: number;
  /** How many HTTP requests the store sent, attempts included. */
  count = 0;

  constructor(client: Anthropic, storeId: string, attempts: number) {
    this.client = client;
    this.storeId = storeId;
    this.#attempts = attempts;
  }

  get memories() {
    return this.client.beta.memoryStores.memories;
  }

  get versions() {
    return this.client.beta.memoryStores.memoryVersions;
  }

  /**
   * Runs `attempt`, again after a temporary failure (connection lost, timeout, 408, 429, 5xx) up to the
   * store's attempts. Rejects with a `RequestFailure` carrying the last error and whether an earlier
   * attempt may have reached the server (`uncertain`).
   */
  async send<T>(attempt: Attempt<T>): Promise<T> {
    let uncertain = false;
    for (let i = 0; ; i++) {
      try {
        this.count += 1;
        return await attempt(NO_SDK_RETRIES);
      } catch (error) {
        if (!isRetryable(error) || i + 1 >= this.#attempts) throw new RequestFailure(error, uncertain);
        // A connection error or a server error may come after the change was applied.
        if (isConnectionError(error) || (statusOf(error) ?? 0) >= 500) uncertain = true;
        await sleep(backoffDelay(i, 50, 1000));
      }
    }
  }

  /** `send`, with any failure as a `StoreFailureError` for `operation`. */
  async read<T>(operation: string, attempt: Attempt<T>): Promise<T> {
    try {
      return await this.send(attempt);
    } catch (error) {
      throw toStoreFailure(operation, error instanceof RequestFailure ? error.cause : error);
    }
  }

  /** Every item of a listing under `prefix` (ending in `/`), pages followed; memories without content. */
  async list(
    prefix: string,
    depth: number,
  ): Promise<Array<Memory | { type: "memory_prefix"; path: string }>> {
    const out: Array<Memory | { type: "memory_prefix"; path: string }> = [];
    let page = await this.read("list", (o) =>
      this.memories.list(this.storeId, { path_prefix: prefix, depth, limit: 100, view: "basic" }, o),
    );
    for (;;) {
      out.push(...page.data);
      if (!page.hasNextPage()) return out;
      const current = page;
      page = await this.read("list", () => current.getNextPage());
    }
  }

  /** Every memory version the filter selects, newest first, pages followed. */
  async allVersions(params: MemoryVersionListParams): Promise<MemoryVersion[]> {
    const out: MemoryVersion[] = [];
    let page = await this.read("list versions", (o) =>
      this.versions.list(this.storeId, { limit: 100, ...params }, o),
    );
    for (;;) {
      out.push(...page.data);
      if (!page.hasNextPage()) return out;
      const current = page;
      page = await this.read("list versions", () => current.getNextPage());
    }
  }
}
