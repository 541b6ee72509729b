/**
 * `mem history URL PATH` and `mem restore URL PATH VERSION`: the earlier versions `@mem/history` keeps of a
 * file (in the store itself, under its reserved hidden name), and undoing a change.
 */
import { isStoreError, type MemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { CommandError } from "../context.js";
import { hasVersions, isRedacted, type Versioned } from "../versioned.js";
import {
  ACTOR_OPTION,
  actorOption,
  type CommandModule,
  EXISTING,
  examples,
  JSON_OPTION,
  memoryPath,
  READ_ONLY,
  URL_ARGUMENT,
} from "./common.js";

/** The versions of the store: its own, or those of a `HistoryStore` over a store that keeps none yet. */
const keptOf = (store: MemoryStore): Versioned => (hasVersions(store) ? store : new HistoryStore(store));

/** The change log of the store: the `HistoryStore` opening put around it, or one over a store that has none yet. */
export const historyOf = (store: MemoryStore): HistoryStore =>
  store instanceof HistoryStore ? store : new HistoryStore(store);

export const history: CommandModule = (program, ctx) => {
  program
    .command("history")
    .description("List the earlier versions @mem/history keeps of a file, newest first")
    .argument(...URL_ARGUMENT)
    .argument("<path>", "memory path of the file (it may have been deleted or moved away since)")
    .option("--redact <version>", "remove that version's content for good, keeping a tombstone")
    .option("--actor <name>", "with --redact: who redacts it, kept in the tombstone")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem history fs:./memory /memories/notes.md",
        "mem history fs:./memory /memories/notes.md --redact 0mwu0gsys-0003-cc13b23f",
      ),
    )
    .action(
      async (url: string, raw: string, options: { json?: boolean; redact?: string; actor?: string }) => {
        if (options.actor !== undefined && options.redact === undefined) {
          throw new CommandError("--actor goes with --redact.", 2);
        }
        await ctx.withStore(
          url,
          async (store) => {
            const path = memoryPath(raw, store);
            if (options.redact !== undefined) {
              const id = options.redact;
              try {
                await keptOf(store).redact(
                  path,
                  id,
                  options.actor === undefined ? {} : { by: options.actor },
                );
              } catch (error) {
                if (isStoreError(error, "NOT_FOUND")) {
                  throw new CommandError(`${path} has no version ${JSON.stringify(id)}; see mem history.`);
                }
                if (error instanceof TypeError) throw new CommandError(`--actor: ${error.message}`, 2);
                throw error;
              }
              if (options.json) ctx.printJson({ path, redacted: id });
              else ctx.print(`Redacted version ${id} of ${path}: its content is gone, a tombstone remains.`);
              return;
            }
            const versions = await keptOf(store).versions(path);
            if (options.json) {
              ctx.printJson({ path, versions });
              return;
            }
            if (versions.length === 0) {
              ctx.io.stdout.write(`${path}: no earlier versions kept.\n`);
              return;
            }
            for (const v of versions) {
              const by =
                v.command === undefined
                  ? ""
                  : `\t${v.command}${v.actor === undefined ? "" : ` by ${v.actor}`}`;
              const redacted = v.redacted
                ? `\tredacted ${new Date(v.redacted.time).toISOString()}${v.redacted.by === undefined ? "" : ` by ${v.redacted.by}`}`
                : "";
              ctx.io.stdout.write(
                `${v.id}\t${new Date(v.time).toISOString()}\t${v.size} bytes${by}${redacted}\n`,
              );
            }
          },
          // A redaction writes (a tombstone); a listing only reads.
          options.redact === undefined ? READ_ONLY : EXISTING,
        );
      },
    );
};

export const restore: CommandModule = (program, ctx) => {
  program
    .command("restore")
    .description("Put back an earlier version of a file (the replaced content becomes a version too)")
    .argument(...URL_ARGUMENT)
    .argument("<path>", "memory path of the file")
    .argument("<version>", "a version id from mem history")
    .option(...ACTOR_OPTION)
    .option(...JSON_OPTION)
    .addHelpText("after", examples("mem restore fs:./memory /memories/notes.md 0mwu0gsys-0003-cc13b23f"))
    .action(async (url: string, raw: string, id: string, options: { json?: boolean; actor?: string }) => {
      actorOption(options.actor, "--actor");
      await ctx.withStore(
        url,
        async (store) => {
          const path = memoryPath(raw, store);
          const kept = keptOf(store);
          const data = await kept.readVersion(path, id).catch((error: unknown) => {
            if (isRedacted(error)) {
              throw new CommandError(`Version ${id} of ${path} was redacted; it cannot be restored.`);
            }
            throw error;
          });
          if (data === null) {
            throw new CommandError(`${path} has no version ${JSON.stringify(id)}; see mem history.`);
          }
          const by = options.actor === undefined ? {} : { actor: options.actor };
          const { replacedVersionId } = await kept.restore(path, id, by);
          if (options.json)
            ctx.printJson({ path, restored: id, replacedVersionId: replacedVersionId ?? null });
          else
            ctx.io.stdout.write(
              `Restored ${path} to ${id}${replacedVersionId ? `; the replaced content is version ${replacedVersionId}` : ""}.\n`,
            );
        },
        EXISTING,
      );
    });
};
