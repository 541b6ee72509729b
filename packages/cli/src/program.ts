/** The `mem` program: commander set up with every command of `commands/index.ts`. */
import { Command } from "commander";
import { COMMANDS } from "./commands/index.js";
import type { Context } from "./context.js";
import { loadModules } from "./modules.js";
import { storeUrlForms } from "./store-url/parse.js";
import { CLI_VERSION } from "./version.js";

export const createProgram = (ctx: Context): Command => {
  const program = new Command("mem")
    .description("Look inside any memory store, back it up, move it, rotate its keys, clean it.")
    .version(CLI_VERSION)
    .showHelpAfterError("(mem --help lists the commands, mem <command> --help shows examples)")
    .configureOutput({
      writeOut: (text) => ctx.io.stdout.write(text),
      writeErr: (text) => ctx.io.stderr.write(text),
      outputError: (text, write) => write(ctx.err.red(text)),
    })
    .exitOverride()
    .option(
      "--require <module>",
      "load a module first (repeatable), e.g. one that adds a store URL scheme with registerScheme",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .hook("preSubcommand", async (command) => {
      await loadModules(command.opts<{ require?: string[] }>().require ?? [], ctx.io.cwd);
    })
    .addHelpText(
      "after",
      () => `
Store URLs:
  ${storeUrlForms().join("\n  ")}
  encrypted+ stores read their key from MEMORY_KEY (base64 of 32 bytes, or a keyring id:key,id:key,...).
  S3 credentials come from the standard AWS variables.

Examples:
  $ mem tree fs:./memory-demo
  $ mem copy fs:./memory-demo redis://127.0.0.1:6379/notes
  $ mem --require ./my-scheme.mjs mcp myscheme://host/notes
`,
    );
  for (const register of COMMANDS) register(program, ctx);
  for (const command of program.commands) command.exitOverride().configureOutput(program.configureOutput());
  return program;
};
