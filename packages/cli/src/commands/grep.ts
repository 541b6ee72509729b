/** `mem grep URL PATTERN`: the lines of the memory's files that match, through core's `searchMemory`. */
import { isStoreError, searchMemory } from "@mem/core";
import { InvalidArgumentError } from "commander";
import { CommandError } from "../context.js";
import { type CommandModule, examples, JSON_OPTION, READ_ONLY, URL_ARGUMENT } from "./common.js";

interface GrepOptions {
  regex?: boolean;
  path?: string;
  caseSensitive?: boolean;
  limit?: number;
  json?: boolean;
}

const limitOf = (raw: string): number => {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1 || value > 10_000) {
    throw new InvalidArgumentError("an integer from 1 to 10000");
  }
  return value;
};

export const grep: CommandModule = (program, ctx) => {
  program
    .command("grep")
    .description("Print the lines of the memory files that match (as the memory_search tool finds them)")
    .argument(...URL_ARGUMENT)
    .argument("<pattern>", "the text to find within a line (a regular expression with --regex)")
    .option("--regex", "the pattern is a regular expression (RE2 syntax, linear time)")
    .option("--path <dir>", "search only this directory or file (default /memories)")
    .option("--case-sensitive", "match letter case exactly")
    .option("--limit <n>", "print at most this many lines (default 1000)", limitOf)
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem grep fs:./memory-demo 'green tea'",
        "mem grep sqlite:./memory.db '^- \\[ \\]' --regex --path /memories/todo",
      ),
    )
    .action(async (url: string, pattern: string, options: GrepOptions) => {
      await ctx.withStore(
        url,
        async (store) => {
          let result: Awaited<ReturnType<typeof searchMemory>>;
          try {
            result = await searchMemory(store, {
              query: pattern,
              regex: options.regex === true,
              caseSensitive: options.caseSensitive === true,
              ...(options.path === undefined ? {} : { path: options.path }),
              ...(options.limit === undefined ? {} : { limit: options.limit }),
            });
          } catch (error) {
            if (error instanceof TypeError)
              throw new CommandError(error.message.replace(/^searchMemory: /, ""), 2);
            if (isStoreError(error, "NOT_FOUND")) {
              throw new CommandError(`${(error as { path: string }).path} does not exist.`, 2);
            }
            throw error;
          }
          if (options.json) ctx.printJson(result);
          else {
            for (const hit of result.hits) ctx.io.stdout.write(`${hit.path}:${hit.line}: ${hit.text}\n`);
            if (result.more > 0) {
              ctx.io.stderr.write(`${result.more} more matching line(s) not shown (--limit).\n`);
            }
            if (result.stopped) {
              ctx.io.stderr.write(
                `Search stopped after reading ${result.stopped.files} files (${result.stopped.bytes} bytes); narrow it with --path.\n`,
              );
            }
          }
          // As grep: 1 when nothing matched.
          if (result.hits.length === 0) ctx.exitCode = 1;
        },
        READ_ONLY,
      );
    });
};
