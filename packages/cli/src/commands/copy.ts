/**
 * `mem copy FROM TO`: everything that travels (travel.ts, as `mem export` and `mem import` carry it) from
 * one store to another, verified; a re-run completes an interrupted copy.
 */
import { INCOMPLETE_NOTE } from "../files.js";
import { describeSummary, stopwatch } from "../progress.js";
import { parseStoreUrl } from "../store-url/parse.js";
import { departure } from "../travel.js";
import { type CommandModule, examples, HISTORY_OPTION, JSON_OPTION, READ_ONLY } from "./common.js";
import { ALL_TENANTS_OPTION } from "./export.js";
import { alreadyThere } from "./import.js";
import { Destination, transfer } from "./transfer.js";

export const copy: CommandModule = (program, ctx) => {
  program
    .command("copy")
    .description(
      "Copy everything one store holds (hidden files and history's versions included) to another and verify each file; run it again to finish an interrupted copy",
    )
    .argument("<from>", "source store URL")
    .argument("<to>", "destination store URL")
    .option("--overwrite", "replace destination files that differ (default: refuse)")
    .option(...ALL_TENANTS_OPTION)
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
        options: { overwrite?: boolean; json?: boolean; history?: boolean; allTenants?: boolean },
      ) => {
        const elapsed = stopwatch();
        const history = options.history === true || parseStoreUrl(to).history === true;
        const result = await ctx.withStore(
          from,
          (source) =>
            ctx.withStore(
              to,
              async (target) => {
                const leaving = await departure(source, options.allTenants === true);
                if (!leaving.complete) ctx.note(ctx.err.yellow(INCOMPLETE_NOTE));
                const read = async (tenant: string | undefined, path: string) =>
                  (await leaving.store(tenant).read(path))?.data ?? null;
                async function* contents() {
                  for (const { path, tenant } of leaving.files) {
                    const data = await read(tenant, path);
                    // Deleted since it was enumerated: nothing to copy.
                    if (data !== null) yield { ...(tenant !== undefined && { tenant }), path, data };
                  }
                }
                return transfer(
                  ctx,
                  "copy",
                  new Destination(target, history),
                  leaving.files.map((f) => ({
                    ...(f.tenant !== undefined && { tenant: f.tenant }),
                    path: f.path,
                    size: f.size,
                    read: () => read(f.tenant, f.path),
                  })),
                  contents(),
                  { overwrite: options.overwrite === true, json: options.json === true },
                );
              },
              { bookkeeping: "unwrapped" },
            ),
          { ...READ_ONLY, bookkeeping: "unwrapped" },
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
