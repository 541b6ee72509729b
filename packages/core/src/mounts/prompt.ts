/** `memorySystemPrompt`: SPEC §6's recommended prompt, followed by the mounts of SPEC §8 when there are some. */
import { msg } from "../messages.js";
import { MEMORY_SYSTEM_PROMPT } from "../prompts.js";
import type { MemoryStore } from "../store.js";
import { MountedStore } from "./mount-store.js";
import { checkMountTable, type MountInfo, type MountTable } from "./table.js";

export interface MemorySystemPromptOptions {
  /** The mount table (or the store `mountStores` made of it): one line per mount follows the prompt. */
  mounts?: MountTable | MemoryStore;
}

const describe = (mounts: MountTable | MemoryStore): readonly MountInfo[] => {
  if (mounts instanceof MountedStore) return mounts.mounts;
  if (typeof (mounts as Partial<MemoryStore>).read === "function") {
    throw new TypeError("memorySystemPrompt: mounts must be a mount table or a store made by mountStores");
  }
  return checkMountTable(mounts).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
};

/**
 * The recommended system prompt (SPEC §6) and, with `mounts`, the line
 * `Your memory directory is made of these memories:` and one line per mount in mount-point order:
 * `- {mount} ({access})` followed by `: {instructions}` when the mount has some.
 *
 * @example
 * ```ts
 * import { InMemoryStore, memorySystemPrompt } from "@mem/core";
 * const system = memorySystemPrompt({
 *   mounts: {
 *     "/memories": { store: new InMemoryStore() },
 *     "/memories/team": { store: new InMemoryStore(), access: "read_only", instructions: "Read it first." },
 *   },
 * });
 * ```
 */
export function memorySystemPrompt(options: MemorySystemPromptOptions = {}): string {
  if (typeof options !== "object" || options === null) {
    throw new TypeError("memorySystemPrompt options must be an object");
  }
  if (options.mounts === undefined) return MEMORY_SYSTEM_PROMPT;
  const lines = describe(options.mounts).map((m) =>
    msg.mountLine(m.path, m.access === "read_only" ? "read-only" : "read-write", m.instructions),
  );
  return [MEMORY_SYSTEM_PROMPT, msg.mountsHeader(), ...lines].join("\n");
}
