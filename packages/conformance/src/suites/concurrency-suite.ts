import { executeCommand, type MemoryStore } from "@mem/core";
import {
  alreadyExists,
  created,
  fileViewHeader,
  inserted,
  outcome,
  SNIPPET_HEADER,
} from "../golden/expected.js";
import type { Harness } from "./harness.js";

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Opens `count` peers of `store`, runs `body`, and releases every peer afterwards. */
async function withPeers<S extends MemoryStore>(
  harness: Harness<S>,
  store: S,
  count: number,
  body: (peers: MemoryStore[]) => Promise<void>,
): Promise<void> {
  const opened = await Promise.allSettled(range(count).map(() => harness.openPeer(store)));
  const peers = opened.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
  try {
    const failed = opened.find((o) => o.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    await body(peers.map((p) => p.peer));
  } finally {
    await Promise.allSettled(peers.map((p) => p.release()));
  }
}

export function concurrencySuite<S extends MemoryStore>(harness: Harness<S>): void {
  const { describe, it, expect } = harness;
  describe("concurrency across instances over one backend", () => {
    it(
      `${harness.concurrentEdits} concurrent str_replace and insert calls on one file lose no edit`,
      () =>
        harness.withStore(async (store) => {
          const path = "/memories/shared/log.md";
          const total = harness.concurrentEdits;
          const replaces = Math.ceil(total / 2);
          const slots = range(replaces).map((i) => `slot-${i}`);
          const seed = await executeCommand(store, {
            command: "create",
            path,
            file_text: `${slots.join("\n")}\n`,
          });
          expect(outcome(seed)).toEqual({ content: created(path), isError: false });

          await withPeers(harness, store, total, async (peers) => {
            const edits = peers.map((peer, i) =>
              i < replaces
                ? executeCommand(peer, {
                    command: "str_replace",
                    path,
                    old_str: `slot-${i}\n`,
                    new_str: `done-${i}\n`,
                  })
                : executeCommand(peer, {
                    command: "insert",
                    path,
                    insert_line: 0,
                    insert_text: `edit-${i}\n`,
                  }),
            );
            // Readers racing the writers must always see one whole version of the file.
            const reads = range(5).map((i) =>
              executeCommand(peers[i % peers.length]!, { command: "view", path }),
            );
            const [results, views] = await Promise.all([Promise.all(edits), Promise.all(reads)]);

            results.forEach((result, i) => {
              const label = `edit ${i}`;
              expect(result.isError, `${label}: ${result.content}`).toBe(false);
              if (i < replaces) expect(result.content.startsWith(`${SNIPPET_HEADER}\n`), label).toBe(true);
              else expect(result.content, label).toBe(inserted(path));
            });
            for (const view of views) {
              expect(view.isError, view.content).toBe(false);
              const [header, ...numbered] = view.content.split("\n");
              expect(header).toBe(fileViewHeader(path));
              expect(numbered.length).toBeGreaterThanOrEqual(replaces);
              expect(numbered.length).toBeLessThanOrEqual(total);
              numbered.forEach((line, n) => {
                const number = `${String(n + 1).padStart(6, " ")}\t`;
                expect(line.startsWith(number), line).toBe(true);
                expect(line.slice(number.length)).toMatch(/^(slot|done|edit)-\d+$/);
              });
            }
          });

          const file = await store.read(path);
          expect(file).not.toBeNull();
          const lines = new TextDecoder().decode(file!.data).split("\n");
          expect(lines.pop(), "the file still ends with a newline").toBe("");
          const expected = [
            ...range(replaces).map((i) => `done-${i}`),
            ...range(total - replaces).map((i) => `edit-${replaces + i}`),
          ];
          expect([...lines].sort()).toEqual([...expected].sort());
          expect(
            lines.filter((l) => l.startsWith("done-")),
            "replaced lines keep their order",
          ).toEqual(range(replaces).map((i) => `done-${i}`));
        }),
      harness.timeout,
    );

    it(
      `${harness.concurrentCreates} concurrent creates of one path: exactly one succeeds`,
      () =>
        harness.withStore(async (store) => {
          const path = "/memories/race/winner.md";
          await withPeers(harness, store, harness.concurrentCreates, async (peers) => {
            const results = (
              await Promise.all(
                peers.map((peer, i) =>
                  executeCommand(peer, { command: "create", path, file_text: `writer-${i}\n` }),
                ),
              )
            ).map(outcome);
            const winners = results.flatMap((r, i) => (r.isError ? [] : [i]));
            expect(winners.length, JSON.stringify(results.filter((r) => !r.isError))).toBe(1);
            const winner = winners[0]!;
            results.forEach((result, i) => {
              expect(result).toEqual(
                i === winner
                  ? { content: created(path), isError: false }
                  : { content: alreadyExists(path), isError: true },
              );
            });
            const file = await store.read(path);
            expect(new TextDecoder().decode(file!.data)).toBe(`writer-${winner}\n`);
          });
        }),
      harness.timeout,
    );

    it(
      "16 concurrent creates with createOverwrites on one file all succeed, and one of them is the file",
      () =>
        harness.withStore(async (store) => {
          const path = "/memories/shared/overwritten.md";
          const texts = range(16).map((i) => `writer ${i}\n${"line\n".repeat(i)}`);
          await withPeers(harness, store, texts.length, async (peers) => {
            const results = await Promise.all(
              peers.map((peer, i) =>
                executeCommand(
                  peer,
                  { command: "create", path, file_text: texts[i] },
                  { createOverwrites: true },
                ),
              ),
            );
            for (const result of results)
              expect(outcome(result)).toEqual({ content: created(path), isError: false });
          });
          const file = await store.read(path);
          expect(texts).toContain(new TextDecoder().decode(file?.data));
          expect((await store.list("/memories/shared", 1))?.entries.map((e) => e.path)).toEqual([path]);
        }),
      harness.timeout,
    );
  });
}
