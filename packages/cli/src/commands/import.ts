/** `mem import URL FILE`: files from a tar archive (as written by `mem export`) into a store. */
import { createReadStream } from "node:fs";
import { resolve } from "node:path";
import type { Readable } from "node:stream";
import { readArchive } from "../archive.js";
import { describeSummary, stopwatch } from "../progress.js";
import { type CommandModule, examples, JSON_OPTION, URL_ARGUMENT } from "./common.js";
import { transfer } from "./transfer.js";

export const importCommand: CommandModule = (program, ctx) => {
  program
    .command("import")
    .description(
      "Write the files of a tar archive into a store; refuses links, absolute paths, '..' and invalid names before writing anything",
    )
    .argument(...URL_ARGUMENT)
    .argument("<file>", "tar archive to read, - for stdin")
    .option("--overwrite", "replace existing files that differ (default: refuse)")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem import s3://my-bucket/notes backup.tar",
        "mem import fs:./restored --overwrite backup.tar",
      ),
    )
    .action(async (url: string, file: string, options: { overwrite?: boolean; json?: boolean }) => {
      const elapsed = stopwatch();
      const input: Readable = file === "-" ? process.stdin : createReadStream(resolve(ctx.io.cwd, file));
      const result = await ctx.withStore(url, async (store) => {
        const files = await readArchive(input, store.isReservedName?.bind(store));
        return transfer(
          ctx,
          "import",
          store,
          files.map((f) => ({ path: f.path, size: f.data.byteLength, read: async () => f.data })),
          { overwrite: options.overwrite === true, json: options.json === true },
        );
      });
      const summary = { ...result, seconds: elapsed() };
      if (options.json) ctx.printJson(summary);
      else
        ctx.print(
          `${ctx.out.green("Imported")} ${describeSummary(summary)}${alreadyThere(result.unchanged)}.`,
        );
    });
};

export const alreadyThere = (unchanged: number): string =>
  unchanged === 0 ? "" : `; ${unchanged} already there with the same content`;
