/** `mem rotate URL`: re-encrypts every file under the active key of MEMORY_KEY's keyring; resumable. */
import type { MemoryStore } from "@mem/core";
import type { RotationOptions, RotationReport } from "@mem/encrypted";
import { HistoryStore } from "@mem/history";
import { CommandError } from "../context.js";
import { stopwatch } from "../progress.js";
import { parseStoreUrl } from "../store-url/parse.js";
import { type CommandModule, EXISTING, examples, JSON_OPTION, URL_ARGUMENT } from "./common.js";

type Rotatable = MemoryStore & { rotate(options?: RotationOptions): Promise<RotationReport> };

const canRotate = (store: MemoryStore): store is Rotatable =>
  typeof (store as Partial<Rotatable>).rotate === "function";

/** The encrypted store itself: kept versions live inside it, so rotating it rotates them too. */
const unwrapped = (store: MemoryStore): MemoryStore => (store instanceof HistoryStore ? store.inner : store);

export const rotate: CommandModule = (program, ctx) => {
  program
    .command("rotate")
    .description(
      "Re-encrypt every file of an encrypted+ store under the first key of MEMORY_KEY (id:key,id:key,...); stop it any time and run it again to finish",
    )
    .argument(...URL_ARGUMENT)
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      `${examples('MEMORY_KEY="2025:$NEW_KEY,default:$OLD_KEY" mem rotate encrypted+fs:./memory-sealed')}
Keep the old key in MEMORY_KEY until a rotation has completed; afterwards MEMORY_KEY="2025:$NEW_KEY" is enough.
`,
    )
    .action(async (url: string, options: { json?: boolean }) => {
      if (!parseStoreUrl(url).encrypted)
        throw new CommandError("mem rotate needs an encrypted+ store URL.", 2);
      const elapsed = stopwatch();
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      try {
        const report = await ctx.withStore(
          url,
          async (opened) => {
            const store = unwrapped(opened);
            if (!canRotate(store)) throw new CommandError("mem rotate needs an encrypted+ store URL.", 2);
            try {
              return await store.rotate({ signal: controller.signal });
            } catch (error) {
              if (controller.signal.aborted) {
                throw new CommandError(
                  "Rotation stopped; files already rotated stay so. Run mem rotate again to finish.",
                );
              }
              throw error;
            }
          },
          EXISTING,
        );
        const summary = { ...report, seconds: elapsed() };
        if (options.json) ctx.printJson(summary);
        else
          ctx.print(
            `${ctx.out.green("Rotated")} ${report.rotated} file(s); ${report.current} already under the active key (${summary.seconds}s).`,
          );
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
    });
};
