/** `mem cat URL PATH`: a file's raw bytes, as stored (decrypted for encrypted stores). */
import { CommandError } from "../context.js";
import { type CommandModule, examples, JSON_OPTION, memoryPath, READ_ONLY, URL_ARGUMENT } from "./common.js";

export const cat: CommandModule = (program, ctx) => {
  program
    .command("cat")
    .description("Print a file's raw content, hidden files included")
    .argument(...URL_ARGUMENT)
    .argument("<path>", "memory path of the file")
    .option(...JSON_OPTION)
    .addHelpText("after", examples("mem cat encrypted+fs:./memory-sealed /memories/notes.md"))
    .action(async (url: string, raw: string, options: { json?: boolean }) => {
      await ctx.withStore(
        url,
        async (store) => {
          const path = memoryPath(raw, store);
          const file = await store.read(path);
          if (!file) {
            const stat = await store.stat(path);
            throw new CommandError(
              stat?.kind === "directory" ? `${path} is a directory.` : `${path} does not exist.`,
            );
          }
          if (options.json) {
            ctx.printJson({ path, size: file.data.byteLength, text: new TextDecoder().decode(file.data) });
          } else {
            ctx.io.stdout.write(file.data);
          }
        },
        READ_ONLY,
      );
    });
};
