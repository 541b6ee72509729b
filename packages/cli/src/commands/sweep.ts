/** `mem sweep URL`: reclaims the storage of expired files (SPEC §7). */
import { formatSize } from "@mem/core";
import { CommandError } from "../context.js";
import { type CommandModule, examples, JSON_OPTION, URL_ARGUMENT } from "./common.js";

export const sweep: CommandModule = (program, ctx) => {
  program
    .command("sweep")
    .description("Remove expired files and report what was reclaimed")
    .argument(...URL_ARGUMENT)
    .option(...JSON_OPTION)
    .addHelpText("after", examples("mem sweep redis://127.0.0.1:6379/notes"))
    .action(async (url: string, options: { json?: boolean }) => {
      const result = await ctx.withStore(url, async (store) => {
        if (!store.sweep) throw new CommandError("This store has no expiry to sweep (it has no sweep()).");
        return store.sweep();
      });
      if (options.json) ctx.printJson(result);
      else ctx.print(`Swept ${result.paths.length} expired file(s), ${formatSize(result.bytes)}.`);
    });
};
