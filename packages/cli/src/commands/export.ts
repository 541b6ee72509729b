/** `mem export URL [FILE|-]`: every file, hidden ones included, into a tar archive. */
import { createWriteStream } from "node:fs";
import { resolve } from "node:path";
import { PassThrough } from "node:stream";
import { writeArchive } from "../archive.js";
import { CommandError } from "../context.js";
import { enumerateFiles, INCOMPLETE_NOTE } from "../files.js";
import { describeSummary, startProgress, stopwatch } from "../progress.js";
import { type CommandModule, examples, JSON_OPTION, READ_ONLY, URL_ARGUMENT } from "./common.js";

export const exportCommand: CommandModule = (program, ctx) => {
  program
    .command("export")
    .description("Write every file (hidden ones included, none of the store's bookkeeping) to a tar archive")
    .argument(...URL_ARGUMENT)
    .argument("[file]", "archive to write; - or nothing for stdout", "-")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem export redis://127.0.0.1:6379/notes backup.tar",
        "mem export fs:./memory-demo - | gzip > backup.tgz",
      ),
    )
    .action(async (url: string, file: string, options: { json?: boolean }) => {
      const toStdout = file === "-";
      if (toStdout && ctx.io.stdout.isTTY === true) {
        throw new CommandError(
          "Refusing to write a tar archive to a terminal: give a file name or pipe the output.",
          2,
        );
      }
      const elapsed = stopwatch();
      const summary = await ctx.withStore(
        url,
        async (store) => {
          const { files, complete } = await enumerateFiles(store);
          if (!complete) ctx.note(ctx.err.yellow(INCOMPLETE_NOTE));
          const progress = startProgress(ctx, "export", files.length, options.json === true);
          const output = toStdout
            ? new PassThrough()
            : createWriteStream(resolve(ctx.io.cwd, file), { mode: 0o600 });
          if (toStdout) output.on("data", (chunk: Buffer) => ctx.io.stdout.write(chunk));
          let count = 0;
          let bytes = 0;
          try {
            await writeArchive(
              output,
              (async function* () {
                for (const { path } of files) {
                  const data = await store.read(path);
                  // Deleted since it was enumerated: nothing to back up.
                  if (!data) continue;
                  count++;
                  bytes += data.data.byteLength;
                  progress.tick(data.data.byteLength);
                  yield { path, data: data.data };
                }
              })(),
            );
          } finally {
            progress.stop();
          }
          return { files: count, bytes, seconds: elapsed(), hiddenIncluded: complete };
        },
        READ_ONLY,
      );
      // The archive may be on stdout; the summary then goes to stderr.
      const say = toStdout ? (text: string) => ctx.note(text) : (text: string) => ctx.print(text);
      if (options.json) say(JSON.stringify(summary));
      else say(`${ctx.out.green("Exported")} ${describeSummary(summary)}${toStdout ? "" : ` to ${file}`}.`);
    });
};
