/**
 * The Worker side of the Durable Object store: a thin client. `execute` sends each tool command to the
 * tenant's object in one RPC; the `MemoryStore` methods (for the `mem` tooling, the conformance suite,
 * wrappers) are one RPC each.
 */
import {
  checkOptions,
  checkQuotaOptions,
  checkTenant,
  type ExecuteOptions,
  type ExpiryOptions,
  emitChange,
  executeCommand,
  expiryOf,
  type FileData,
  type FileOrListing,
  type Listing,
  type ListOptions,
  type MemoryStore,
  type PurgeOptions,
  type PurgeResult,
  parseCommand,
  purgeOptions,
  type Stat,
  type StoreCapabilities,
  type StoredFile,
  type SweepResult,
  type TenantPage,
  type TenantsOptions,
  type ToolResult,
  tenantPageOptions,
  type Usage,
  unscopedPurgeError,
  type Version,
  type WriteCondition,
  type WriteQuota,
} from "@mem/core";
import { missingBinding, toStoreFailure } from "./failure.js";
import type { RequestTime } from "./object-files.js";
import {
  addressOf,
  type CommandReply,
  fromWire,
  type MethodCall,
  type MethodReply,
  type ObjectAddress,
  type RemoteOptions,
} from "./protocol.js";

export interface DurableObjectStoreOptions extends ExpiryOptions {
  /**
   * The name of the Durable Object binding in `wrangler.toml` (default `MEMORY`): the objects reach each
   * other through it (a tenant registers with its parent, a purge reaches nested tenants).
   */
  readonly binding?: string;
  /**
   * The name of the root object (default `memories`); tenants' objects are named `{name}/{tenant}`. Stores
   * with different names share nothing. No `/`.
   */
  readonly name?: string;
}

/** The RPC surface of a `MemoryObject` stub. */
interface ObjectStub {
  execute(
    address: ObjectAddress,
    binding: string,
    command: unknown,
    options: RemoteOptions,
    time: RequestTime,
  ): Promise<CommandReply>;
  call(
    address: ObjectAddress,
    binding: string,
    call: MethodCall,
    time: RequestTime,
  ): Promise<MethodReply<unknown>>;
  tenants(after: string | null, limit: number): Promise<TenantPage>;
  purgeTree(address: ObjectAddress, binding: string, dryRun: boolean): Promise<PurgeResult>;
}

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): unknown;
}

const isNamespace = (value: unknown): value is Namespace =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Namespace).idFromName === "function" &&
  typeof (value as Namespace).get === "function";

const WRITES = new Set(["create", "str_replace", "insert", "delete", "rename"]);

/** Every method fails with `error`: the store `executeCommand` answers a failed RPC with. */
const failing = (error: Error): MemoryStore => {
  const fail = async (): Promise<never> => {
    throw error;
  };
  return { read: fail, stat: fail, list: fail, write: fail, delete: fail, rename: fail };
};

/**
 * A `MemoryStore` whose files live in Durable Objects (SQLite-backed), one object per tenant. Give it the
 * namespace binding of `MemoryObject` (`env.MEMORY`). A missing or wrong binding is no exception: every
 * command then answers SPEC's failure result naming the Durable Object.
 *
 * @example
 * ```ts
 * import { DurableObjectStore } from "@mem/cloudflare";
 *
 * declare const env: { MEMORY: DurableObjectNamespace };
 * const store = new DurableObjectStore(env.MEMORY).scope("user-42");
 * const result = await store.execute({ command: "view", path: "/memories" }); // one RPC
 * ```
 */
export class DurableObjectStore implements MemoryStore {
  readonly backend = "durable-object";
  readonly capabilities: StoreCapabilities = { crossProcessSafe: true, atomicDirectoryRename: true };
  readonly #namespace: unknown;
  readonly #options: DurableObjectStoreOptions;
  readonly #binding: string;
  readonly #address: ObjectAddress;
  readonly #clock: () => number;
  readonly #expiryMs: number | null;
  readonly #scopes = new Map<string, DurableObjectStore>();

  constructor(namespace: unknown, options: DurableObjectStoreOptions = {}) {
    const o = checkOptions("DurableObjectStore", options);
    o.string("binding", { optional: true, nonEmpty: true });
    o.string("name", { optional: true, nonEmpty: true });
    const name = options.name ?? "memories";
    if (name.includes("/")) throw new TypeError("DurableObjectStore: option name must not contain /");
    const expiry = expiryOf(options);
    this.#namespace = namespace;
    this.#options = options;
    this.#binding = options.binding ?? "MEMORY";
    this.#address = addressOf(ScopeName.current ?? name);
    this.#clock = options.clock ?? Date.now;
    this.#expiryMs = expiry ? expiry.limitMs : null;
  }

  #stub(): ObjectStub {
    if (!isNamespace(this.#namespace)) throw missingBinding("Durable Object");
    const namespace = this.#namespace;
    return namespace.get(namespace.idFromName(this.#address.self)) as ObjectStub;
  }

  #time(): RequestTime {
    return { now: this.#clock(), expiryMs: this.#expiryMs };
  }

  async #call<T>(call: MethodCall, changes: boolean): Promise<T> {
    let reply: MethodReply<unknown>;
    try {
      reply = await this.#stub().call(this.#address, this.#binding, call, this.#time());
    } catch (error) {
      throw toStoreFailure(error, "Durable Object", changes && isNamespace(this.#namespace));
    }
    if (!reply.ok) throw fromWire(reply.error);
    return reply.value as T;
  }

  /**
   * Runs one memory tool call inside the tenant's object: one RPC. The input is parsed here first (input
   * that is not plain data never crosses; core answers it); the typed command and the options cross, and
   * the object runs it with `executeCommand`. Of the options, `onChange` and `onUnexpectedError` run
   * here, from what the object reports; custom sensitive-data detectors are functions, which cannot
   * cross (a `TypeError`: construct the guard inside a `MemoryObject` subclass instead). Never throws for
   * any input or storage failure.
   */
  async execute(input: unknown, options: ExecuteOptions = {}): Promise<ToolResult> {
    checkQuotaOptions(options);
    const { onChange, onUnexpectedError, ...remote } = options;
    if (remote.sensitive && (remote.sensitive.custom?.length ?? 0) > 0) {
      throw new TypeError(
        "DurableObjectStore.execute: option sensitive.custom holds functions, which cannot reach the Durable Object",
      );
    }
    let parsed: ReturnType<typeof parseCommand>;
    try {
      parsed = parseCommand(input);
    } catch {
      // A throwing getter or a hostile proxy: core's answer, and nothing reaches the object.
      return executeCommand(failing(missingBinding("Durable Object")), input, options);
    }
    if (!parsed.ok) return { content: parsed.error, isError: true };
    let reply: CommandReply;
    try {
      reply = await this.#stub().execute(this.#address, this.#binding, parsed.command, remote, this.#time());
    } catch (error) {
      const maybe = WRITES.has(parsed.command.command) && isNamespace(this.#namespace);
      return executeCommand(failing(toStoreFailure(error, "Durable Object", maybe)), parsed.command, options);
    }
    if (reply.typeError !== undefined) throw new TypeError(reply.typeError);
    if (reply.change) emitChange(onChange, reply.change);
    if (reply.unexpected && onUnexpectedError) {
      const error = Object.assign(new Error(reply.unexpected.message), { name: reply.unexpected.name });
      try {
        onUnexpectedError(error);
      } catch {
        // A failing hook must not turn into a thrown tool call.
      }
    }
    return reply.result;
  }

  read(path: string): Promise<FileData | null> {
    return this.#call({ op: "read", path }, false);
  }

  stat(path: string): Promise<Stat | null> {
    return this.#call({ op: "stat", path }, false);
  }

  list(dir: string, depth: number, options?: ListOptions): Promise<Listing | null> {
    return this.#call({ op: "list", path: dir, depth, ...listOptions(options) }, false);
  }

  readOrList(path: string, depth: number, options?: ListOptions): Promise<FileOrListing | null> {
    return this.#call({ op: "readOrList", path, depth, ...listOptions(options) }, false);
  }

  write(path: string, data: Uint8Array, condition: WriteCondition): Promise<{ version: Version }> {
    return this.#call({ op: "write", path, data, ...versionOf(condition) }, true);
  }

  writeWithinQuota(
    path: string,
    data: Uint8Array,
    condition: WriteCondition,
    quota: WriteQuota,
  ): Promise<{ version: Version }> {
    const limits = {
      ...(quota.maxFiles === undefined ? {} : { maxFiles: quota.maxFiles }),
      ...(quota.maxTotalBytes === undefined ? {} : { maxTotalBytes: quota.maxTotalBytes }),
    };
    return this.#call({ op: "write", path, data, ...versionOf(condition), quota: limits }, true);
  }

  delete(path: string): Promise<boolean> {
    return this.#call({ op: "delete", path }, true);
  }

  rename(from: string, to: string): Promise<void> {
    return this.#call({ op: "rename", path: from, to }, true);
  }

  usage(): Promise<Usage> {
    return this.#call({ op: "usage" }, false);
  }

  files(): Promise<StoredFile[]> {
    return this.#call({ op: "files" }, false);
  }

  sweep(): Promise<SweepResult> {
    return this.#call({ op: "sweep" }, true);
  }

  /** The tenant's own store: its own Durable Object, named `{name}/{tenant}`. */
  scope(tenant: string): DurableObjectStore {
    checkTenant(tenant);
    let scoped = this.#scopes.get(tenant);
    if (!scoped) {
      ScopeName.current = `${this.#address.self}/${tenant}`;
      try {
        scoped = new DurableObjectStore(this.#namespace, this.#options);
      } finally {
        ScopeName.current = undefined;
      }
      this.#scopes.set(tenant, scoped);
    }
    return scoped;
  }

  /** The tenants nested directly in this store that hold (or held) files, from this object's registry. */
  async tenants(options?: TenantsOptions): Promise<TenantPage> {
    const { after, limit } = tenantPageOptions(options);
    try {
      return await this.#stub().tenants(after ?? null, limit);
    } catch (error) {
      throw toStoreFailure(error, "Durable Object");
    }
  }

  /** Erases the tenant's object and every object nested in it; only on a scoped store. */
  async purge(options?: PurgeOptions): Promise<PurgeResult> {
    const { dryRun } = purgeOptions(options);
    if (this.#address.parent === null) throw unscopedPurgeError();
    try {
      return await this.#stub().purgeTree(this.#address, this.#binding, dryRun);
    } catch (error) {
      throw toStoreFailure(error, "Durable Object", !dryRun);
    }
  }
}

/** The object name a scope is being constructed with (the constructor's public form takes a root name). */
const ScopeName: { current: string | undefined } = { current: undefined };

const listOptions = (options: ListOptions | undefined): { limit?: number; countFiles?: boolean } => ({
  ...(options?.limit === undefined ? {} : { limit: options.limit }),
  ...(options?.countFiles === undefined ? {} : { countFiles: options.countFiles }),
});

const versionOf = (condition: WriteCondition): { ifVersion?: string } =>
  "ifVersion" in condition ? { ifVersion: condition.ifVersion } : {};
