/** `mem copy FROM TO`: every file of one store into another, verified; a re-run completes an interrupted copy. */
import { enumerateFiles, INCOMPLETE_NOTE } from "../files.js";
import { describeSummary, stopwatch } from "../progress.js";
import { type CommandModule, examples, HISTORY_OPTION, JSON_OPTION, READ_ONLY } from "./common.js";
import { alreadyThere } from "./import.js";
import { transfer } from "./transfer.js";

export const copy: CommandModule = (program, ctx) => {
  program
    .command("copy")
    .description(
      "Copy every file (hidden ones included) from one store to another and verify each; run it again to finish an interrupted copy",
    )
    .argument("<from>", "source store URL")
    .argument("<to>", "destination store URL")
    .option("--overwrite", "replace destination files that differ (default: refuse)")
    .option(...HISTORY_OPTION)
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem copy fs:./memory-demo redis://127.0.0.1:6379/notes",
        'MEMORY_KEY=... mem copy fs:./plain "encrypted+s3://my-bucket/notes?region=eu-west-1"',
      ),
    )
    .action(
      async (
        from: string,
        to: string,
        options: { overwrite?: boolean; json?: boolean; history?: boolean },
      ) => {
        const elapsed = stopwatch();
        const result = await ctx.withStore(
          from,
          (source) =>
            ctx.withStore(
              to,
              async (target) => {
                const { files, complete } = await enumerateFiles(source);
                if (!complete) ctx.note(ctx.err.yellow(INCOMPLETE_NOTE));
                const read = async (path: string) => (await source.read(path))?.data ?? null;
                async function* contents() {
                  for (const { path } of files) {
                    const data = await read(path);
                    // Deleted since it was enumerated: nothing to copy.
                    if (data !== null) yield { path, data };
                  }
                }
                return transfer(
                  ctx,
                  "copy",
                  target,
                  files.map((f) => ({ path: f.path, size: f.size, read: () => read(f.path) })),
                  contents(),
                  { overwrite: options.overwrite === true, json: options.json === true },
                );
              },
              { history: options.history === true },
            ),
          READ_ONLY,
        );
        const summary = { ...result, seconds: elapsed() };
        if (options.json) ctx.printJson(summary);
        else
          ctx.print(
            `${ctx.out.green("Copied")} ${describeSummary(summary)}${alreadyThere(result.unchanged)}; ${result.verified} verified.`,
          );
      },
    );
};
