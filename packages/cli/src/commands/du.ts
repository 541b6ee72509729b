/**
 * `mem du URL`: files and bytes held, against the quota the application sets, if given, and apart from
 * them the bytes `@mem/history` keeps (quotas count live files; history has its own bound).
 */
import { formatSize, isSameOrInside, ROOT } from "@mem/core";
import { HISTORY_NAME } from "@mem/history";
import { CommandError } from "../context.js";
import { enumerateFiles } from "../files.js";
import { type CommandModule, examples, JSON_OPTION, READ_ONLY, URL_ARGUMENT } from "./common.js";

const count = (name: string) => (text: string) => {
  if (!/^\d+$/.test(text)) throw new CommandError(`${name} must be a whole number, not "${text}".`, 2);
  return Number(text);
};

const share = (used: number, limit: number | undefined): string =>
  limit === undefined ? "" : ` of ${limit} (${limit === 0 ? 100 : Math.round((used / limit) * 100)}%)`;

export const du: CommandModule = (program, ctx) => {
  program
    .command("du")
    .description(
      "Show the files and bytes a store holds (hidden files included), and how much of a quota that is; exit 1 when over it",
    )
    .argument(...URL_ARGUMENT)
    .option(
      "--max-files <n>",
      "the application's file quota (maxFiles), to compare against",
      count("--max-files"),
    )
    .option(
      "--max-bytes <n>",
      "the application's byte quota (maxBytes), to compare against",
      count("--max-bytes"),
    )
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples("mem du redis://127.0.0.1:6379/notes?tenant=alice --max-files 1000 --max-bytes 10485760"),
    )
    .action(async (url: string, options: { maxFiles?: number; maxBytes?: number; json?: boolean }) => {
      const usage = await ctx.withStore(
        url,
        async (store) => {
          // openStore has already wrapped a store holding versions in HistoryStore, whose usage()
          // reports the bytes history keeps apart from the live files.
          if (store.usage) {
            const { files, bytes, historyBytes = 0 } = await store.usage();
            return { files, bytes, historyBytes, measuredBy: "usage()", complete: true };
          }
          const { files: all, complete } = await enumerateFiles(store);
          const history = `${ROOT}/${HISTORY_NAME}`;
          const files = all.filter((f) => !isSameOrInside(f.path, history));
          const bytes = files.reduce((sum, f) => sum + f.size, 0);
          const historyBytes = all.reduce((sum, f) => sum + f.size, 0) - bytes;
          return {
            files: files.length,
            bytes,
            historyBytes,
            measuredBy: complete ? "files()" : "list()",
            complete,
          };
        },
        READ_ONLY,
      );
      const over =
        (options.maxFiles !== undefined && usage.files > options.maxFiles) ||
        (options.maxBytes !== undefined && usage.bytes > options.maxBytes);
      if (over) ctx.exitCode = 1;
      if (options.json) {
        ctx.printJson({
          files: usage.files,
          bytes: usage.bytes,
          historyBytes: usage.historyBytes,
          ...(options.maxFiles !== undefined && { maxFiles: options.maxFiles }),
          ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }),
          overQuota: over,
          hiddenIncluded: usage.complete,
        });
        return;
      }
      ctx.print(`files  ${usage.files}${share(usage.files, options.maxFiles)}`);
      ctx.print(`bytes  ${formatSize(usage.bytes)}${share(usage.bytes, options.maxBytes)}`);
      if (usage.historyBytes > 0)
        ctx.print(`history  ${formatSize(usage.historyBytes)} (not counted by quotas)`);
      if (!usage.complete)
        ctx.print(ctx.out.yellow("Hidden files are not counted: this store cannot enumerate them."));
      if (over) ctx.print(ctx.out.red("Over quota: new files are refused until some are deleted."));
    });
};
