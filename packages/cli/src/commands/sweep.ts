/** `mem sweep URL --expire-after SECONDS`: reclaims the storage of expired files (SPEC §7). */
import { formatSize } from "@mem/core";
import { CommandError } from "../context.js";
import {
  type CommandModule,
  EXPIRE_AFTER_OPTION,
  examples,
  JSON_OPTION,
  READ_ONLY,
  URL_ARGUMENT,
} from "./common.js";

export const sweep: CommandModule = (program, ctx) => {
  program
    .command("sweep")
    .description("Remove the files not accessed for SECONDS and report what was reclaimed")
    .argument(...URL_ARGUMENT)
    .requiredOption(...EXPIRE_AFTER_OPTION)
    .option(...JSON_OPTION)
    .addHelpText("after", examples("mem sweep redis://127.0.0.1:6379/notes --expire-after 2592000"))
    .action(async (url: string, options: { json?: boolean; expireAfter: number }) => {
      const result = await ctx.withStore(
        url,
        async (store) => {
          if (!store.sweep) throw new CommandError("This store has no expiry to sweep (it has no sweep()).");
          return store.sweep();
        },
        // Opened as it is: on Redis every read removes expired files, and the report would miss them.
        { ...READ_ONLY, bookkeeping: false, expireAfterSeconds: options.expireAfter },
      );
      if (options.json) ctx.printJson(result);
      else ctx.print(`Swept ${result.paths.length} expired file(s), ${formatSize(result.bytes)}.`);
    });
};
