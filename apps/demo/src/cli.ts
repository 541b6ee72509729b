/** Command-line options of the demo. */
import { parseArgs } from "node:util";
import { STORE_URL_FORMS } from "@mem/open";

/** Claude model used with the real API unless `--model` says otherwise. */
export const DEFAULT_MODEL = "claude-sonnet-5-5";
export const DEFAULT_STORE = "fs:./memory-demo";

export interface CliOptions {
  store: string;
  model: string;
  keep: boolean;
  offline: boolean;
  help: boolean;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export const USAGE = `Usage: pnpm demo [-- options]

Two conversations with Claude and the memory tool: the first records what it learns, the second starts
with an empty context and continues from memory.

Options:
  --store <url>    where memory lives (default ${DEFAULT_STORE}):
                     ${STORE_URL_FORMS.join("\n                     ")}
  --keep           reuse the memory as it is instead of starting from an empty one
  --model <id>     Claude model for the real API (default ${DEFAULT_MODEL})
  --offline        use the built-in scripted Claude even when ANTHROPIC_API_KEY is set
  -h, --help       show this help

Without ANTHROPIC_API_KEY the demo runs offline against a scripted Claude on a local port.
encrypted+ stores read their key (base64, 32 bytes) from MEMORY_KEY.`;

export const parseCli = (args: readonly string[]): CliOptions => {
  let values: ReturnType<typeof parse>["values"];
  try {
    values = parse(args).values;
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  return {
    store: values.store ?? DEFAULT_STORE,
    model: values.model ?? DEFAULT_MODEL,
    keep: values.keep ?? false,
    offline: values.offline ?? false,
    help: values.help ?? false,
  };
};

const parse = (args: readonly string[]) =>
  parseArgs({
    // pnpm passes a lone `--` through when it separates script arguments.
    args: args.filter((a, i) => !(a === "--" && i === 0)),
    strict: true,
    allowPositionals: false,
    options: {
      store: { type: "string" },
      model: { type: "string" },
      keep: { type: "boolean" },
      offline: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
