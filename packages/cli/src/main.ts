/** The `mem` command line. Exit codes: 0 done, 1 failed (or an error result), 2 bad usage. */
import { MemoryStoreError } from "@mem/core";
import { CommanderError } from "commander";
import { CommandError, createContext } from "./context.js";
import { createProgram } from "./program.js";
import { StoreSetupError, StoreUrlError } from "./store-url/errors.js";
import { maskUrl } from "./store-url/mask.js";

const main = async (): Promise<number> => {
  const ctx = createContext({
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  });
  const program = createProgram(ctx);
  try {
    await program.parseAsync(process.argv);
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    // Messages are masked once more: a driver's error may quote a connection string.
    const say = (text: string) => ctx.note(ctx.err.red(`mem: ${maskUrl(text)}`));
    if (error instanceof CommandError) {
      say(error.message);
      return error.exitCode;
    }
    if (error instanceof StoreUrlError) {
      say(error.message);
      return 2;
    }
    if (error instanceof StoreSetupError || error instanceof MemoryStoreError) {
      say(error.message);
      return 1;
    }
    say(error instanceof Error ? error.message : String(error));
    return 1;
  }
};

// `mem cat ... | head` closes the pipe early; that is no error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main();
