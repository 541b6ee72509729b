/** `mem view URL [PATH] [--range A:B]`: exactly what the memory tool's view returns. */
import { executeCommand, ROOT } from "@mem/core";
import { CommandError } from "../context.js";
import { type CommandModule, examples, JSON_OPTION, READ_ONLY, URL_ARGUMENT } from "./common.js";

const parseRange = (text: string): [number, number] => {
  const match = /^(\d+):(-1|\d+)$/.exec(text);
  if (!match)
    throw new CommandError(`--range must be A:B, e.g. 1:20 or 5:-1 (to the end), not "${text}".`, 2);
  return [Number(match[1]), Number(match[2])];
};

export const view: CommandModule = (program, ctx) => {
  program
    .command("view")
    .description("Show what the memory tool's view returns for a directory or file, as Claude sees it")
    .argument(...URL_ARGUMENT)
    .argument("[path]", "memory path", ROOT)
    .option("--range <a:b>", "lines A to B of a file (B = -1: to the end)")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples("mem view fs:./memory-demo", "mem view fs:./memory-demo /memories/notes.md --range 1:20"),
    )
    .action(async (url: string, path: string, options: { range?: string; json?: boolean }) => {
      const range = options.range === undefined ? undefined : parseRange(options.range);
      const result = await ctx.withStore(
        url,
        (store) => executeCommand(store, { command: "view", path, ...(range && { view_range: range }) }),
        READ_ONLY,
      );
      if (options.json) ctx.printJson(result);
      else ctx.print(result.isError ? ctx.out.red(result.content) : result.content);
      if (result.isError) ctx.exitCode = 1;
    });
};
