/**
 * The Durable Object that holds one tenant's `/memories` and runs each tool command inside itself: one
 * RPC from the Worker per command, one command at a time (`blockConcurrencyWhile`), so every command is
 * atomic and strongly consistent with no retries. Export it from the Worker for `wrangler.toml`.
 */
import { DurableObject } from "cloudflare:workers";
import {
  type ChangeEvent,
  executeCommand,
  type FileOrListing,
  type PurgeResult,
  tenantPage,
} from "@mem/core";
import { toStoreFailure } from "./failure.js";
import { ObjectFiles, type RequestTime } from "./object-files.js";
import {
  addressOf,
  type CommandReply,
  type MethodCall,
  type MethodReply,
  type ObjectAddress,
  type RemoteOptions,
  toWire,
} from "./protocol.js";

/** The stub of another `MemoryObject` (a parent or a nested tenant), as RPC sees it. */
interface PeerStub {
  register(address: ObjectAddress, binding: string, id: string): Promise<void>;
  unregister(id: string): Promise<void>;
  purgeTree(address: ObjectAddress, binding: string, dryRun: boolean, nested?: boolean): Promise<PurgeResult>;
  release(address: ObjectAddress, binding: string): Promise<void>;
}

interface Env {
  readonly [binding: string]: unknown;
}

/** The namespace this object belongs to, found among its bindings by its own class. */
interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): unknown;
}

const describe = (error: unknown): { name: string; message: string } =>
  error instanceof Error
    ? { name: error.name, message: error.message }
    : { name: "Error", message: String(error) };

export class MemoryObject extends DurableObject<Env> {
  #files: ObjectFiles | null = null;

  /** The object's tables, created on first use (and again after a purge erased them). */
  #ensure(): ObjectFiles {
    this.#files ??= new ObjectFiles(this.ctx.storage.sql);
    return this.#files;
  }

  #open(time: RequestTime, reclaim = true): ObjectFiles {
    const files = this.#ensure();
    files.begin(time, reclaim);
    return files;
  }

  #meta(key: string): unknown {
    this.#ensure();
    return this.ctx.storage.sql.exec("SELECT value FROM mem_meta WHERE key = ?", key).toArray()[0]?.value;
  }

  #setMeta(key: string, value: unknown): void {
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO mem_meta (key, value) VALUES (?, ?)", key, value);
  }

  /** Another object of this class, through the binding the Worker named (its parent, a nested tenant). */
  #peer(binding: string, name: string): PeerStub {
    const namespace = this.env[binding] as Namespace | undefined;
    if (!namespace) throw new Error("the Worker named a binding this object does not have");
    return namespace.get(namespace.idFromName(name)) as PeerStub;
  }

  /** Runs `body` with no other request of this object in between. */
  #alone<T>(body: () => Promise<T>): Promise<T> {
    return this.ctx.blockConcurrencyWhile(body);
  }

  /**
   * Runs one tool command, already parsed by the Worker, with the options it sent. Function-valued
   * options stay in the Worker: the reply carries the change and the unexpected error for its hooks.
   */
  async execute(
    address: ObjectAddress,
    binding: string,
    command: unknown,
    options: RemoteOptions,
    time: RequestTime,
  ): Promise<CommandReply> {
    return this.#alone(async () => {
      const files = this.#open(time);
      let change: ChangeEvent | undefined;
      let unexpected: { name: string; message: string } | undefined;
      let result: Awaited<ReturnType<typeof executeCommand>>;
      try {
        result = await executeCommand(files, command, {
          ...options,
          onChange: (event) => {
            change = event;
          },
          onUnexpectedError: (error) => {
            unexpected = describe(error);
          },
        });
      } catch (error) {
        // Only a bad option gets here (executeCommand's TypeError); the Worker throws it.
        return { result: { content: "", isError: true }, typeError: describe(error).message };
      }
      await this.#settle(address, binding, time);
      const found: { change?: ChangeEvent; unexpected?: { name: string; message: string } } = {};
      if (change) found.change = change;
      if (unexpected) found.unexpected = unexpected;
      return { result: { ...result }, ...found } satisfies CommandReply;
    });
  }

  /** One method of the `MemoryStore` contract, for the Worker-side store's direct calls. */
  async call(
    address: ObjectAddress,
    binding: string,
    call: MethodCall,
    time: RequestTime,
  ): Promise<MethodReply<unknown>> {
    return this.#alone(async () => {
      try {
        const files = this.#open(time, call.op !== "sweep");
        const value = await this.#method(files, call);
        await this.#settle(address, binding, time);
        return { ok: true, value };
      } catch (error) {
        const wire = toWire(toStoreFailure(error, "Durable Object"));
        if (!wire) throw error;
        return { ok: false, error: wire };
      }
    });
  }

  async #method(files: ObjectFiles, call: MethodCall): Promise<unknown> {
    switch (call.op) {
      case "read":
        return files.read(call.path);
      case "stat":
        return files.stat(call.path);
      case "list":
      case "readOrList": {
        const options = {
          countFiles: call.countFiles === true,
          ...(call.limit === undefined ? {} : { limit: call.limit }),
        };
        const found: unknown =
          call.op === "list"
            ? await files.list(call.path, call.depth, options)
            : ((await files.readOrList(call.path, call.depth, options)) satisfies FileOrListing | null);
        return found;
      }
      case "write": {
        const condition =
          call.ifVersion === undefined ? { ifAbsent: true as const } : { ifVersion: call.ifVersion };
        return call.quota
          ? files.writeWithinQuota(call.path, call.data, condition, call.quota)
          : files.write(call.path, call.data, condition);
      }
      case "delete":
        return files.delete(call.path);
      case "rename":
        return files.rename(call.path, call.to);
      case "usage":
        return files.usage();
      case "files":
        return files.files();
      case "sweep":
        return files.sweep();
    }
  }

  /**
   * After a request: a tenant that now holds files is registered with its parent (so the parent's
   * `tenants()` lists it), and the expiry alarm is set for the oldest file.
   */
  async #settle(address: ObjectAddress, binding: string, time: RequestTime): Promise<void> {
    const files = this.#files;
    if (!files) return;
    const oldest = files.oldestAccess();
    if (oldest !== null && address.parent !== null && address.id !== null && this.#meta("registered") !== 1) {
      await this.#peer(binding, address.parent).register(addressOf(address.parent), binding, address.id);
      this.#setMeta("registered", 1);
    }
    if (time.expiryMs !== null) {
      this.#setMeta("expiryMs", time.expiryMs);
      if (oldest !== null) await this.ctx.storage.setAlarm(Math.max(Date.now(), oldest + time.expiryMs + 1));
    }
  }

  /** Expiry: removes the files not accessed within the limit, and waits for the next one to expire. */
  override async alarm(): Promise<void> {
    const expiryMs = this.#meta("expiryMs");
    if (typeof expiryMs !== "number") return;
    const files = this.#open({ now: Date.now(), expiryMs });
    const oldest = files.oldestAccess();
    if (oldest !== null) await this.ctx.storage.setAlarm(oldest + expiryMs + 1);
  }

  /** A nested tenant that holds files: listed by `tenants()` from now on. */
  async register(address: ObjectAddress, binding: string, id: string): Promise<void> {
    return this.#alone(async () => {
      this.#ensure();
      this.ctx.storage.sql.exec("INSERT OR IGNORE INTO mem_tenants (id) VALUES (?)", id);
      // A parent of a tenant that holds files holds something too: it registers with its own parent.
      if (address.parent !== null && address.id !== null && this.#meta("registered") !== 1) {
        await this.#peer(binding, address.parent).register(addressOf(address.parent), binding, address.id);
        this.#setMeta("registered", 1);
      }
    });
  }

  async unregister(id: string): Promise<void> {
    return this.#alone(async () => {
      this.#ensure();
      this.ctx.storage.sql.exec("DELETE FROM mem_tenants WHERE id = ?", id);
    });
  }

  /** One page of the tenants nested directly in this object, in byte order of id. */
  async tenants(after: string | null, limit: number): Promise<{ tenants: { id: string }[]; next?: string }> {
    this.#ensure();
    const rows = this.ctx.storage.sql
      .exec("SELECT id FROM mem_tenants WHERE id > ? ORDER BY id LIMIT ?", after ?? "", limit + 1)
      .toArray();
    const page = tenantPage(
      rows.map((row) => ({ id: row.id as string })),
      limit,
    );
    return page.next === undefined
      ? { tenants: [...page.tenants] }
      : { tenants: [...page.tenants], next: page.next };
  }

  /**
   * Erases this object and every tenant nested in it, fenced (SPEC §7): first this object's fence goes
   * up (every change it is asked for from then on answers `ErasingError`), then each nested tenant is
   * erased the same way and left fenced, then this object's rows are deleted, keeping the fence and the
   * list of nested tenants to release, in one synchronous step (one commit). Only then, on the purged
   * tenant itself (`nested` false), it leaves its parent's list and releases (`release`): its fence goes
   * down, then each nested one's. So no change to the tenant or to one nested in it lands between the
   * start of the purge and its end, and an interrupted purge leaves
   * the fences up (changes refused, reads answered) until it is run again, which completes it from the
   * registry and the release list it finds. `dryRun` only counts, and fences nothing.
   */
  async purgeTree(
    address: ObjectAddress,
    binding: string,
    dryRun: boolean,
    nested = false,
  ): Promise<PurgeResult> {
    this.#ensure();
    const sql = this.ctx.storage.sql;
    if (!dryRun) this.#setMeta("fence", 1);
    const children = sql
      .exec("SELECT id FROM mem_tenants ORDER BY id")
      .toArray()
      .map((row) => row.id as string);
    let files = 0;
    let bytes = 0;
    for (const child of children) {
      const name = `${address.self}/${child}`;
      const removed = await this.#peer(binding, name).purgeTree(addressOf(name), binding, dryRun, true);
      files += removed.files;
      bytes += removed.bytes;
    }
    const own = this.#ensure().totals();
    files += own.files;
    bytes += own.bytes;
    if (dryRun) return { files, bytes };
    // One synchronous step: the rows go, the fence and the tenants to release stay.
    const release = [...new Set([...this.#releaseList(), ...children])].sort();
    sql.exec("DELETE FROM mem_files");
    sql.exec("DELETE FROM mem_tenants");
    sql.exec("DELETE FROM mem_meta WHERE key <> 'fence'");
    this.#setMeta("release", JSON.stringify(release));
    await this.ctx.storage.deleteAlarm();
    if (!nested) {
      if (address.parent !== null && address.id !== null) {
        await this.#peer(binding, address.parent).unregister(address.id);
      }
      await this.release(address, binding);
    }
    return { files, bytes };
  }

  /** The nested tenants an interrupted purge had erased and not yet released. */
  #releaseList(): string[] {
    const listed = this.#meta("release");
    return typeof listed === "string" ? (JSON.parse(listed) as string[]) : [];
  }

  /**
   * The end of a purge: this object's fence goes down first, then the nested tenants are released the
   * same way, then the list of them. A change to a released nested tenant may land at once; it
   * registers with this object, which keeps the registration (it erases nothing any more).
   */
  async release(address: ObjectAddress, binding: string): Promise<void> {
    const children = this.#releaseList();
    this.ctx.storage.sql.exec("DELETE FROM mem_meta WHERE key = 'fence'");
    for (const child of children) {
      const name = `${address.self}/${child}`;
      await this.#peer(binding, name).release(addressOf(name), binding);
    }
    this.ctx.storage.sql.exec("DELETE FROM mem_meta WHERE key = 'release'");
  }
}
