/** `mem verify URL`: reads (and for encrypted stores decrypts) every file; exit 1 if any fails. */

import { formatSize } from "@mem/core";
import type { Context } from "../context.js";
import { enumerateFiles, INCOMPLETE_NOTE } from "../files.js";
import { describeSummary, startProgress, stopwatch } from "../progress.js";
import { maskUrl } from "../store-url/mask.js";
import { compareWithArchive } from "../verify-against.js";
import { type CommandModule, examples, JSON_OPTION, READ_ONLY, URL_ARGUMENT } from "./common.js";

export const verify: CommandModule = (program, ctx) => {
  program
    .command("verify")
    .description("Read every file (decrypting encrypted ones) and report each that fails; exit 1 if any does")
    .argument(...URL_ARGUMENT)
    .option(
      "--against <archive>",
      "instead, prove the store holds exactly what the archive does (mem export's): same files, bytes and versions",
    )
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "MEMORY_KEY=... mem verify encrypted+fs:./memory-sealed",
        "mem verify sqlite:./restored.db --against backup.tar",
      ),
    )
    .action(async (url: string, options: { json?: boolean; against?: string }) => {
      if (options.against !== undefined)
        return verifyAgainst(ctx, url, options.against, options.json === true);
      const elapsed = stopwatch();
      const report = await ctx.withStore(
        url,
        async (store) => {
          const { files, complete } = await enumerateFiles(store);
          if (!complete) ctx.note(ctx.err.yellow(INCOMPLETE_NOTE));
          const failures: { path: string; error: string }[] = [];
          let bytes = 0;
          let ok = 0;
          const progress = startProgress(ctx, "verify", files.length, options.json === true);
          try {
            for (const { path } of files) {
              try {
                const file = await store.read(path);
                if (file) {
                  ok++;
                  bytes += file.data.byteLength;
                  progress.tick(file.data.byteLength);
                } else progress.tick(0);
              } catch (error) {
                failures.push({
                  path,
                  error: maskUrl(error instanceof Error ? error.message : String(error)),
                });
                progress.tick(0);
              }
            }
          } finally {
            progress.stop();
          }
          return { files: ok, bytes, failures, seconds: elapsed() };
        },
        READ_ONLY,
      );
      if (report.failures.length > 0) ctx.exitCode = 1;
      if (options.json) {
        ctx.printJson(report);
        return;
      }
      for (const failure of report.failures)
        ctx.print(`${ctx.out.red("✗")} ${failure.path}: ${failure.error}`);
      ctx.print(
        report.failures.length === 0
          ? `${ctx.out.green("✓")} ${describeSummary(report)}: all read back.`
          : ctx.out.red(`${report.failures.length} file(s) failed; ${describeSummary(report)} read back.`),
      );
    });
};

const verifyAgainst = async (ctx: Context, url: string, archive: string, json: boolean): Promise<void> => {
  const report = await ctx.withStore(url, (store) => compareWithArchive(store, archive, ctx.io.cwd), {
    ...READ_ONLY,
    bookkeeping: "unwrapped",
  });
  const same = report.missing.length + report.extra.length + report.differing.length === 0;
  if (!same) ctx.exitCode = 1;
  if (json) {
    ctx.printJson({ same, ...report });
    return;
  }
  const list = (label: string, paths: string[]) => {
    for (const path of paths) ctx.print(`${ctx.out.red("✗")} ${label}: ${path}`);
  };
  list("missing", report.missing);
  list("not in the archive", report.extra);
  list("other bytes", report.differing);
  const what = `${report.files} file(s), ${formatSize(report.bytes)}, ${report.history} of them history's`;
  ctx.print(
    same
      ? `${ctx.out.green("✓")} ${what}: the store holds exactly what ${archive} does.`
      : ctx.out.red(
          `The store differs from ${archive}: ${report.missing.length} missing, ${report.extra.length} not in the archive, ${report.differing.length} with other bytes; ${what} the same.`,
        ),
  );
};
