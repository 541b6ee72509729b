import { tracingChannel } from "node:diagnostics_channel";
import { afterEach, describe, expect, it } from "vitest";
import {
  COMMAND_CHANNEL,
  type CommandTrace,
  executeCommand,
  ForwardingStore,
  InMemoryStore,
  STORE_CHANNEL,
  type StoreTrace,
} from "../src/index.js";

const commands = tracingChannel<CommandTrace>(COMMAND_CHANNEL);
const stores = tracingChannel<StoreTrace>(STORE_CHANNEL);

/** Subscribes to both channels and records what ends, until the returned function unsubscribes. */
const listen = () => {
  const ended: CommandTrace[] = [];
  const calls: (StoreTrace & { error?: unknown })[] = [];
  const commandHandlers = {
    start: () => {},
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (trace: CommandTrace) => void ended.push({ ...trace }),
    error: () => {},
  };
  const storeHandlers = {
    start: () => {},
    end: () => {},
    asyncStart: () => {},
    asyncEnd: (trace: StoreTrace) => void calls.push(trace),
    error: () => {},
  };
  commands.subscribe(commandHandlers);
  stores.subscribe(storeHandlers);
  const stop = () => {
    commands.unsubscribe(commandHandlers);
    stores.unsubscribe(storeHandlers);
  };
  return { ended, calls, stop };
};

let stop = () => {};
afterEach(() => stop());

describe("diagnostics channels", () => {
  it("publishes each command with its outcome, sizes and storage calls", async () => {
    const listening = listen();
    stop = listening.stop;
    const store = new InMemoryStore();
    const options = { actor: "agent", tenant: "t1" };
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "one\n" }, options);
    await executeCommand(store, {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "one",
      new_str: "three",
    });
    await executeCommand(store, { command: "view", path: "/memories/missing" });
    await executeCommand(store, {
      command: "create",
      path: "/memories/b.md",
      file_text: "AKIAIOSFODNN7EXAMPLE",
    });
    await executeCommand(store, { command: "nope" });

    expect(listening.ended.map((t) => [t.command, t.path, t.outcome, t.errorType])).toEqual([
      ["create", "/memories/a.md", "ok", undefined],
      ["str_replace", "/memories/a.md", "ok", undefined],
      ["view", "/memories/missing", "error", "not_found"],
      ["create", "/memories/b.md", "refused", "sensitive"],
      [undefined, undefined, "error", "invalid_input"],
    ]);
    const [create, edit] = listening.ended;
    expect([create!.actor, create!.tenant, create!.backend, create!.bytesWritten]).toEqual([
      "agent",
      "t1",
      "memory",
      4,
    ]);
    expect([edit!.actor, edit!.bytesRead, edit!.bytesWritten, edit!.retries]).toEqual([undefined, 4, 6, 0]);
    expect(listening.calls[0]).toMatchObject({
      operation: "write",
      backend: "memory",
      path: "/memories/a.md",
    });
    expect(listening.calls[0]!.parent).toMatchObject({ command: "create", path: "/memories/a.md" });
    expect(listening.calls.map((c) => c.parent.command)).toContain("str_replace");
  });

  it("counts the conflicts an edit retried", async () => {
    const listening = listen();
    stop = listening.stop;
    let conflicts = 2;
    // A store without `update` whose first writes lose to another writer.
    class Contended extends ForwardingStore {
      override async write(...args: Parameters<ForwardingStore["write"]>) {
        if ("ifVersion" in args[2] && conflicts-- > 0)
          await this.inner.write(args[0], new TextEncoder().encode("x one\n"), {
            ifVersion: args[2].ifVersion,
          });
        return super.write(...args);
      }
    }
    const store = new Contended(new InMemoryStore());
    await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "one\n" });
    const result = await executeCommand(store, {
      command: "str_replace",
      path: "/memories/a.md",
      old_str: "one",
      new_str: "two",
    });
    expect(result.isError).toBe(false);
    expect(listening.ended[1]!.retries).toBe(2);
    expect(listening.calls.filter((c) => c.operation === "write" && "error" in c).length).toBe(2);
  });

  it("runs the store's own methods with nothing subscribed, and on the store itself when traced", async () => {
    const seen: unknown[] = [];
    class Private extends InMemoryStore {
      readonly #mark = "own";
      override read(path: string) {
        seen.push(this.#mark);
        return super.read(path);
      }
    }
    const store = new Private();
    await executeCommand(store, { command: "view", path: "/memories/a" });
    const listening = listen();
    stop = listening.stop;
    const traced = await executeCommand(store, { command: "view", path: "/memories/a" });
    expect(traced.content).toBe("The path /memories/a does not exist. Please provide a valid path.");
    expect(seen).toEqual(["own", "own"]);
  });
});

describe("diagnostics channels and broken stores", () => {
  it("answers an error result, never a rejection, for a store whose backend getter throws", async () => {
    const listening = listen();
    stop = listening.stop;
    const store = new InMemoryStore();
    Object.defineProperty(store, "backend", {
      get() {
        throw new Error("broken");
      },
    });
    const result = await executeCommand(store, { command: "view", path: "/memories" });
    expect(result).toEqual({
      content:
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories",
      isError: false,
    });
    expect(listening.ended[0]).toMatchObject({ command: "view", backend: undefined, outcome: "ok" });
    // No store at all: the same error result as with nothing subscribed.
    const traced = await executeCommand(null as never, { command: "view", path: "/memories" });
    listening.stop();
    const untraced = await executeCommand(null as never, { command: "view", path: "/memories" });
    expect(traced).toEqual(untraced);
    expect(traced.isError).toBe(true);
  });
});
