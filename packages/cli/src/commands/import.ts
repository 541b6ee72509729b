/**
 * `mem import URL FILE`: a tar archive `mem export` wrote (any format version up to this one's, see
 * docs/archive.md) back into a store: its files, versions and tenants, exactly.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { access, constants, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DEFAULT_MAX_FILE_BYTES, resolveGuard } from "@mem/core";
import { entryName } from "../archive.js";
import { checkArchive, checkedFiles } from "../archive-check.js";
import { CommandError } from "../context.js";
import { describeSummary, stopwatch } from "../progress.js";
import { parseStoreUrl } from "../store-url/parse.js";
import { checkTravellingPath } from "../travel.js";
import { type CommandModule, examples, HISTORY_OPTION, JSON_OPTION, URL_ARGUMENT } from "./common.js";
import { Destination, transfer } from "./transfer.js";

interface ImportFlags {
  overwrite?: boolean;
  json?: boolean;
  history?: boolean;
  maxFileBytes?: number;
  allowSecrets?: boolean;
}

const bytes = (text: string): number => {
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text)) || Number(text) === 0) {
    throw new CommandError(`--max-file-bytes must be a positive whole number, not "${text}".`, 2);
  }
  return Number(text);
};

/**
 * The archive as something that can be read twice (once to check it, once to write it): the file, or
 * stdin kept in a private temporary file. `done` removes what was made for it.
 */
const archiveSource = async (
  file: string,
  cwd: string,
): Promise<{ open: () => Readable; done: () => Promise<void> }> => {
  if (file === "-") {
    const dir = await mkdtemp(join(tmpdir(), "mem-import-"));
    const spooled = join(dir, "archive");
    await pipeline(process.stdin, createWriteStream(spooled, { mode: 0o600 }));
    return { open: () => createReadStream(spooled), done: () => rm(dir, { recursive: true, force: true }) };
  }
  const path = resolve(cwd, file);
  try {
    await access(path, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CommandError(
      code === "ENOENT" ? `${file} does not exist.` : `Cannot read ${file} (${code ?? "unreadable"}).`,
    );
  }
  return { open: () => createReadStream(path), done: async () => undefined };
};

export const importCommand: CommandModule = (program, ctx) => {
  program
    .command("import")
    .description(
      "Write the files of a tar archive (.tar or .tar.gz) into a store; checks the whole archive and the store before writing anything",
    )
    .argument(...URL_ARGUMENT)
    .argument("<file>", "tar archive to read, - for stdin")
    .option("--overwrite", "replace existing files that differ (default: refuse)")
    .option(
      "--max-file-bytes <n>",
      `refuse the archive if a file is larger (default ${DEFAULT_MAX_FILE_BYTES}, the memory tool's maxFileBytes)`,
      bytes,
    )
    .option(
      "--allow-secrets",
      "import files the sensitive-data guard would refuse (default: refuse the archive)",
    )
    .option(...HISTORY_OPTION)
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem import s3://my-bucket/notes backup.tar",
        "mem import fs:./restored --overwrite backup.tar.gz",
      ),
    )
    .action(async (url: string, file: string, options: ImportFlags) => {
      const elapsed = stopwatch();
      const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
      // Everything about the archive is checked before the store is opened: a refused archive leaves
      // nothing behind, not even an empty store.
      const source = await archiveSource(file, ctx.io.cwd);
      try {
        const checks = { maxFileBytes, guard: options.allowSecrets ? null : resolveGuard(undefined) };
        const { files } = await checkArchive(source.open(), checks);
        const history = options.history === true || parseStoreUrl(url).history === true;
        const result = await ctx.withStore(
          url,
          async (store) => {
            // The store's own reserved names are known only now; checking them reads nothing.
            const reserved = files.flatMap((f) => {
              const check = checkTravellingPath(f.path, store);
              return check.ok
                ? []
                : [`"${entryName(f.path, f.tenant)}" is not a valid memory path (${check.why})`];
            });
            if (reserved.length > 0) {
              throw new CommandError(
                `The archive was refused and nothing was imported: ${reserved.slice(0, 5).join("; ")}.`,
              );
            }
            if (!store.scope && files.some((f) => f.tenant !== undefined)) {
              throw new CommandError(
                "The archive holds tenants, and this store has none (it has no scope()); nothing was imported.",
              );
            }
            return transfer(
              ctx,
              "import",
              new Destination(store, history),
              files,
              checkedFiles(source.open(), files, maxFileBytes),
              { overwrite: options.overwrite === true, json: options.json === true },
            );
          },
          { bookkeeping: "unwrapped" },
        );
        const summary = { ...result, seconds: elapsed() };
        if (options.json) ctx.printJson(summary);
        else
          ctx.print(
            `${ctx.out.green("Imported")} ${describeSummary(summary)}${alreadyThere(result.unchanged)}.`,
          );
      } finally {
        await source.done();
      }
    });
};

export const alreadyThere = (unchanged: number): string =>
  unchanged === 0 ? "" : `; ${unchanged} already there with the same content`;
