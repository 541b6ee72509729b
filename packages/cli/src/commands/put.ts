/** `mem put URL LOCALFILE PATH`: puts a local file (an image, any bytes) into memory through the store API. */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { isStoreError, type MemoryStore, TooManyConflictsError, updateWithRetry } from "@mem/core";
import { CommandError } from "../context.js";
import { type CommandModule, examples, JSON_OPTION, memoryPath, URL_ARGUMENT } from "./common.js";

const readLocal = async (file: string): Promise<Uint8Array> => {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "an error";
    throw new CommandError(`cannot read ${file} (${code}).`);
  }
};

/** Writes `data` at `path`: a new file, or with `overwrite` a conditional write over the current version. */
const put = async (
  store: MemoryStore,
  path: string,
  data: Uint8Array,
  overwrite: boolean,
): Promise<boolean> => {
  let replaced = false;
  try {
    await updateWithRetry(store, path, (current) => {
      if (current && !overwrite)
        throw new CommandError(`${path} already exists; add --overwrite to replace it.`);
      replaced = current !== null;
      return data;
    });
    return replaced;
  } catch (error) {
    if (isStoreError(error, "NOT_A_DIRECTORY")) {
      throw new CommandError(`${path} cannot be written: a file is among its parent directories.`);
    }
    // Only a directory's AlreadyExistsError comes out of the update; a file there is handled above.
    if (isStoreError(error, "ALREADY_EXISTS")) throw new CommandError(`${path} is a directory.`);
    // `instanceof`: the loop's own error, from this copy of core.
    if (error instanceof TooManyConflictsError) {
      throw new CommandError(`${path} kept changing while it was written; nothing was written, try again.`);
    }
    throw error;
  }
};

export const putCommand: CommandModule = (program, ctx) => {
  program
    .command("put")
    .description("Put a local file (an image the model can view, any bytes) into memory")
    .argument(...URL_ARGUMENT)
    .argument("<localfile>", "the file to read")
    .argument("<path>", "memory path to write, e.g. /memories/diagrams/flow.png")
    .option("--overwrite", "replace a file already at the path")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem put fs:./memory-demo ./flow.png /memories/diagrams/flow.png",
        "mem put redis://127.0.0.1:6379/team ./logo.jpg /memories/brand/logo.jpg --overwrite",
      ),
    )
    .action(
      async (url: string, file: string, raw: string, options: { overwrite?: boolean; json?: boolean }) => {
        const data = await readLocal(resolve(ctx.io.cwd, file));
        const { path, replaced } = await ctx.withStore(url, async (store) => {
          const path = memoryPath(raw, store);
          return { path, replaced: await put(store, path, data, options.overwrite === true) };
        });
        if (options.json) ctx.printJson({ path, size: data.byteLength, replaced });
        else ctx.print(`${ctx.out.green(replaced ? "Replaced" : "Put")} ${path} (${data.byteLength} bytes).`);
      },
    );
};
