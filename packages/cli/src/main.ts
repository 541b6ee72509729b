/** The `mem` command line. Exit codes: 0 done, 1 failed (or an error result), 2 bad usage. */
import { CommanderError } from "commander";
import { CommandError, createContext } from "./context.js";
import { storeOfError } from "./labels.js";
import { mountsInPlaceOfUrl } from "./mounts-option.js";
import { createProgram } from "./program.js";
import { StoreUrlError } from "./store-url/errors.js";
import { maskUrl } from "./store-url/mask.js";

const ctx = createContext({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});

/** The reason of any error, on one line: a driver's message may span lines, or be empty. */
const reasonOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error);
  let text = error.message;
  if (text.trim() === "" && error instanceof AggregateError && error.errors.length > 0) {
    text = reasonOf(error.errors[0]);
  }
  if (text.trim() === "") text = (error as NodeJS.ErrnoException).code ?? error.name;
  return text.replace(/\s*\n\s*/g, " ").trim();
};

/** One line on stderr; messages are masked once more, since a driver's error may quote a connection string. */
const report = (error: unknown): void => {
  const store = storeOfError(error);
  const text = store === undefined ? reasonOf(error) : `${store}: ${reasonOf(error)}`;
  ctx.note(ctx.err.red(`mem: ${maskUrl(text)}`));
};

const main = async (): Promise<number> => {
  const program = createProgram(ctx);
  try {
    await program.parseAsync(mountsInPlaceOfUrl(process.argv));
    return ctx.exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    report(error);
    if (error instanceof CommandError) return error.exitCode;
    return error instanceof StoreUrlError ? 2 : 1;
  }
};

// `mem cat ... | head` closes the pipe early; that is no error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

// Whatever escapes (a stream's late 'error' event) is still one line, never a stack trace.
const fatal = (error: unknown): void => {
  report(error);
  process.exit(1);
};
process.on("uncaughtException", fatal);
process.on("unhandledRejection", fatal);

process.exitCode = await main();
