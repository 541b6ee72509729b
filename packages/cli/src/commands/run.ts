/** `mem run URL JSON`: runs any memory tool input and prints the result. */
import { executeCommand } from "@mem/core";
import { CommandError } from "../context.js";
import {
  ACTOR_OPTION,
  actorOption,
  type CommandModule,
  examples,
  HISTORY_OPTION,
  JSON_OPTION,
  URL_ARGUMENT,
} from "./common.js";

export const run: CommandModule = (program, ctx) => {
  program
    .command("run")
    .description(
      "Run one memory tool input (the JSON Claude sends) and print the result; exit 1 on an error result",
    )
    .argument(...URL_ARGUMENT)
    .argument("<input>", "the tool input as JSON")
    .option(...HISTORY_OPTION)
    .option(...JSON_OPTION)
    .option(...ACTOR_OPTION)
    .addHelpText(
      "after",
      examples(
        `mem run fs:./memory-demo '{"command":"create","path":"/memories/todo.md","file_text":"- ship\\n"}'`,
      ),
    )
    .action(
      async (url: string, text: string, options: { json?: boolean; history?: boolean; actor?: string }) => {
        actorOption(options.actor, "--actor");
        let input: unknown;
        try {
          input = JSON.parse(text);
        } catch (error) {
          throw new CommandError(`The input is not valid JSON: ${(error as Error).message}`, 2);
        }
        const result = await ctx.withStore(
          url,
          (store) =>
            executeCommand(store, input, options.actor === undefined ? {} : { actor: options.actor }),
          { history: options.history === true },
        );
        if (options.json) ctx.printJson(result);
        else ctx.print(result.isError ? ctx.out.red(result.content) : result.content);
        if (result.isError) ctx.exitCode = 1;
      },
    );
};
