/**
 * `mem export URL [FILE|-]`: everything that travels (travel.ts) into a versioned tar archive
 * (docs/archive.md): every file, hidden ones and reserved ones such as history's versions included, and
 * with `--all-tenants` every tenant's.
 */
import { createWriteStream, existsSync } from "node:fs";
import { resolve } from "node:path";
import { PassThrough } from "node:stream";
import { entryName, MANIFEST_NAME, manifestOf, writeArchive } from "../archive.js";
import { CommandError } from "../context.js";
import { INCOMPLETE_NOTE } from "../files.js";
import { describeSummary, startProgress, stopwatch } from "../progress.js";
import { departure } from "../travel.js";
import { type CommandModule, examples, JSON_OPTION, READ_ONLY, URL_ARGUMENT } from "./common.js";

export const ALL_TENANTS_OPTION = [
  "--all-tenants",
  "every tenant of the store too (tenants() lists them), each with its own files and versions",
] as const;

export const exportCommand: CommandModule = (program, ctx) => {
  program
    .command("export")
    .description(
      "Write everything the store holds (hidden files and history's versions included, none of the store's bookkeeping) to a tar archive",
    )
    .argument(...URL_ARGUMENT)
    .argument("[file]", "archive to write; - or nothing for stdout", "-")
    .option(...ALL_TENANTS_OPTION)
    .option("--force", "replace the archive if the file exists (default: refuse)")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem export redis://127.0.0.1:6379/notes backup.tar",
        "mem export postgres://localhost/app --all-tenants backup.tar",
        "mem export fs:./memory-demo - | gzip > backup.tgz",
      ),
    )
    .action(
      async (
        url: string,
        file: string,
        options: { json?: boolean; allTenants?: boolean; force?: boolean },
      ) => {
        const toStdout = file === "-";
        if (toStdout && ctx.io.stdout.isTTY === true) {
          throw new CommandError(
            "Refusing to write a tar archive to a terminal: give a file name or pipe the output.",
            2,
          );
        }
        const target = toStdout ? "" : resolve(ctx.io.cwd, file);
        if (!toStdout && options.force !== true && existsSync(target)) {
          throw new CommandError(`${file} already exists: pass --force to replace it.`, 2);
        }
        const elapsed = stopwatch();
        const summary = await ctx.withStore(
          url,
          async (store) => {
            const leaving = await departure(store, options.allTenants === true);
            if (!leaving.complete) ctx.note(ctx.err.yellow(INCOMPLETE_NOTE));
            const progress = startProgress(ctx, "export", leaving.files.length, options.json === true);
            const output = toStdout
              ? new PassThrough()
              : createWriteStream(target, { mode: 0o600, flags: options.force === true ? "w" : "wx" });
            if (toStdout) output.on("data", (chunk: Buffer) => ctx.io.stdout.write(chunk));
            let count = 0;
            let bytes = 0;
            try {
              await writeArchive(
                output,
                (async function* () {
                  yield {
                    name: MANIFEST_NAME,
                    data: manifestOf(options.allTenants === true ? leaving.tenants : null),
                  };
                  for (const { path, tenant } of leaving.files) {
                    const data = await leaving.store(tenant).read(path);
                    // Deleted since it was enumerated: nothing to back up.
                    if (!data) continue;
                    count++;
                    bytes += data.data.byteLength;
                    progress.tick(data.data.byteLength);
                    yield { name: entryName(path, tenant), data: data.data };
                  }
                })(),
              );
            } finally {
              progress.stop();
            }
            return {
              files: count,
              bytes,
              ...(options.allTenants === true && { tenants: leaving.tenants.length }),
              seconds: elapsed(),
              hiddenIncluded: leaving.complete,
            };
          },
          { ...READ_ONLY, bookkeeping: "unwrapped" },
        );
        // The archive may be on stdout; the summary then goes to stderr.
        const say = toStdout ? (text: string) => ctx.note(text) : (text: string) => ctx.print(text);
        if (options.json) say(JSON.stringify(summary));
        else
          say(
            `${ctx.out.green("Exported")} ${describeSummary(summary)}${summary.tenants === undefined ? "" : ` (${summary.tenants} tenant(s) included)`}${toStdout ? "" : ` to ${file}`}.`,
          );
      },
    );
};
