/** `memorySystemPrompt`: SPEC §6's recommended prompt, followed by the mounts of SPEC §8 when there are some. */
import { msg } from "../messages.js";
import { MEMORY_SYSTEM_PROMPT } from "../prompts.js";
import type { MemoryStore } from "../store.js";
import { mountsOf } from "./refusals.js";
import { checkMountTable, type MountInfo, type MountTable } from "./table.js";

export interface MemorySystemPromptOptions {
  /** The mount table (or the store `mountStores` made of it): one line per mount follows the prompt. */
  mounts?: MountTable | MemoryStore;
}

const byPath = (a: MountInfo, b: MountInfo): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

const describe = (mounts: MountTable | MemoryStore): readonly MountInfo[] | null => {
  if (typeof (mounts as Partial<MemoryStore>).read === "function") {
    const found = mountsOf(mounts as MemoryStore);
    return found ? [...found].sort(byPath) : null;
  }
  return checkMountTable(mounts).sort(byPath);
};

/**
 * SPEC §8's description of the mounts: the line `Your memory directory is made of these memories:` and
 * one line per mount in mount-point order, `- {mount} ({access})` followed by `: {instructions}` when it
 * has some. `null` for a store that is not made of mounts. Tool descriptions (MCP) append it.
 *
 * @example
 * ```ts
 * import { InMemoryStore, memoryMountsText, mountStores } from "@mem/core";
 * const memory = mountStores({ "/memories": { store: new InMemoryStore() } });
 * memoryMountsText(memory); // "Your memory directory is made of these memories:\n- /memories (read-write)"
 * ```
 */
export function memoryMountsText(mounts: MountTable | MemoryStore): string | null {
  const described = describe(mounts);
  if (!described) return null;
  const lines = described.map((m) =>
    msg.mountLine(m.path, m.access === "read_only" ? "read-only" : "read-write", m.instructions),
  );
  return [msg.mountsHeader(), ...lines].join("\n");
}

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
  const text = memoryMountsText(options.mounts);
  if (text === null) {
    throw new TypeError("memorySystemPrompt: mounts must be a mount table or a store made by mountStores");
  }
  return `${MEMORY_SYSTEM_PROMPT}\n${text}`;
}
