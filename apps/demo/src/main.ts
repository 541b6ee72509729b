/** `pnpm demo`: the memory tool demo in a terminal. */
import Anthropic from "@anthropic-ai/sdk";
import { isStoreError } from "@mem/core";
import { StoreSetupError, StoreUrlError } from "@mem/open";
import { parseCli, USAGE, UsageError } from "./cli.js";
import { DemoError, runDemo } from "./demo.js";

const main = async (): Promise<number> => {
  let cli: ReturnType<typeof parseCli>;
  try {
    cli = parseCli(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    return 2;
  }
  if (cli.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    await runDemo({
      ...cli,
      env: process.env,
      // pnpm runs the script inside apps/demo; relative paths mean the directory the command was typed in.
      cwd: process.env["INIT_CWD"] ?? process.cwd(),
      output: process.stdout,
      chunkDelayMs: process.stdout.isTTY ? 12 : 0,
    });
    return 0;
  } catch (error) {
    if (error instanceof StoreUrlError) {
      process.stderr.write(`${error.message}\n`);
      return 2;
    }
    const known =
      error instanceof DemoError ||
      error instanceof StoreSetupError ||
      isStoreError(error) ||
      error instanceof Anthropic.APIError;
    const what = isStoreError(error) ? "the memory store failed: " : "";
    process.stderr.write(
      `\nThe demo stopped: ${what}${error instanceof Error ? error.message : String(error)}\n`,
    );
    if (!known && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    return 1;
  }
};

// `pnpm demo | head` closes the pipe early; that is no error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});

process.exitCode = await main();
