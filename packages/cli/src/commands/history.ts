/**
 * `mem history URL PATH` and `mem restore URL PATH VERSION`: the earlier versions `@mem/history` keeps of a
 * file (in the store itself, under its reserved hidden name), and undoing a change.
 */
import type { MemoryStore } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { CommandError } from "../context.js";
import { type CommandModule, examples, JSON_OPTION, memoryPath, READ_ONLY, URL_ARGUMENT } from "./common.js";

/** The versions of the store: the `HistoryStore` opening put around it, or one over a store that has none yet. */
const keptOf = (store: MemoryStore): HistoryStore =>
  store instanceof HistoryStore ? store : new HistoryStore(store);

export const history: CommandModule = (program, ctx) => {
  program
    .command("history")
    .description("List the earlier versions @mem/history keeps of a file, newest first")
    .argument(...URL_ARGUMENT)
    .argument("<path>", "memory path of the file (it may have been deleted or moved away since)")
    .option(...JSON_OPTION)
    .addHelpText("after", examples("mem history fs:./memory /memories/notes.md"))
    .action(async (url: string, raw: string, options: { json?: boolean }) => {
      await ctx.withStore(
        url,
        async (store) => {
          const path = memoryPath(raw, store);
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
              v.command === undefined ? "" : `\t${v.command}${v.actor === undefined ? "" : ` by ${v.actor}`}`;
            ctx.io.stdout.write(`${v.id}\t${new Date(v.time).toISOString()}\t${v.size} bytes${by}\n`);
          }
        },
        READ_ONLY,
      );
    });
};

export const restore: CommandModule = (program, ctx) => {
  program
    .command("restore")
    .description("Put back an earlier version of a file (the replaced content becomes a version too)")
    .argument(...URL_ARGUMENT)
    .argument("<path>", "memory path of the file")
    .argument("<version>", "a version id from mem history")
    .option(...JSON_OPTION)
    .addHelpText("after", examples("mem restore fs:./memory /memories/notes.md 0mwu0gsys-0003-cc13b23f"))
    .action(async (url: string, raw: string, id: string, options: { json?: boolean }) => {
      await ctx.withStore(
        url,
        async (store) => {
          const path = memoryPath(raw, store);
          const kept = keptOf(store);
          if ((await kept.readVersion(path, id)) === null) {
            throw new CommandError(`${path} has no version ${JSON.stringify(id)}; see mem history.`);
          }
          const { replacedVersionId } = await kept.restore(path, id);
          if (options.json)
            ctx.printJson({ path, restored: id, replacedVersionId: replacedVersionId ?? null });
          else
            ctx.io.stdout.write(
              `Restored ${path} to ${id}${replacedVersionId ? `; the replaced content is version ${replacedVersionId}` : ""}.\n`,
            );
        },
        READ_ONLY,
      );
    });
};
