/**
 * Journals of directory renames. S3 cannot move many keys in one step, so a directory rename writes a
 * small journal object `{prefix}.mem-s3-rename/{sha256(to)}.json` holding `{ from, to }` before it copies
 * anything, and deletes it only after the originals are gone. While a journal exists, the same rename
 * may continue into the partly filled destination; any other rename into it is refused.
 */
import type { Bucket } from "./bucket.js";
import type { KeySpace } from "./keys.js";

export interface JournalEntry {
  from: string;
  to: string;
}

type Probe = (path: string) => Promise<{ kind: "file" | "directory" } | null>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const JSON_TYPE = { contentType: "application/json" };

const parse = (data: Uint8Array): JournalEntry | null => {
  try {
    const value = JSON.parse(decoder.decode(data)) as Partial<JournalEntry>;
    return typeof value.from === "string" && typeof value.to === "string"
      ? { from: value.from, to: value.to }
      : null;
  } catch {
    return null;
  }
};

export class RenameJournal {
  readonly #bucket: Bucket;
  readonly #keys: KeySpace;

  constructor(bucket: Bucket, keys: KeySpace) {
    this.#bucket = bucket;
    this.#keys = keys;
  }

  /** True when the journal of `to` records the rename `from` → `to`. */
  async isFor(from: string, to: string): Promise<boolean> {
    const entry = await this.#read(to);
    return entry?.from === from && entry.to === to;
  }

  /**
   * Writes the journal of `from` → `to` unless one exists. An existing journal of the same rename is
   * reused; one whose source is gone is stale and replaced. `false` when another rename into `to` is
   * unfinished.
   */
  async open(from: string, to: string, probe: Probe): Promise<boolean> {
    const key = this.#keys.journalKey(to);
    const body = encoder.encode(JSON.stringify({ from, to } satisfies JournalEntry));
    for (let attempt = 0; attempt < 3; attempt++) {
      const created = await this.#bucket.put(key, body, { ifNoneMatch: "*" }, JSON_TYPE);
      if (!("refused" in created)) return true;
      const existing = await this.#bucket.get(key);
      if (!existing) continue;
      const entry = parse(existing.data);
      if (entry?.from === from && entry.to === to) return true;
      if (entry && (await probe(entry.from))?.kind === "directory") return false;
      const replaced = await this.#bucket.put(key, body, { ifMatch: existing.etag }, JSON_TYPE);
      if (!("refused" in replaced)) return true;
    }
    return false;
  }

  /** Deletes the journal of `to`: the rename into it is complete. */
  async close(to: string): Promise<void> {
    await this.#bucket.deleteOne(this.#keys.journalKey(to));
  }

  /** Every journal in this store's key space. */
  async all(): Promise<JournalEntry[]> {
    const objects = await this.#bucket.listAll(this.#keys.journalPrefix);
    const entries = await Promise.all(objects.map(async (o) => this.#bucket.get(o.key)));
    return entries.flatMap((object) => {
      const entry = object && parse(object.data);
      return entry ? [entry] : [];
    });
  }

  async #read(to: string): Promise<JournalEntry | null> {
    const object = await this.#bucket.get(this.#keys.journalKey(to));
    return object && parse(object.data);
  }
}
