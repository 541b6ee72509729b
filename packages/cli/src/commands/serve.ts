/** `mem serve URL`: a console in the browser to look at a store's memory, its history and its changes. */
import { CommandError } from "../context.js";
import { mountsFileOf } from "../mounts-option.js";
import { maskUrl } from "../store-url/mask.js";
import { describeStore, parseStoreUrl } from "../store-url/parse.js";
import { type CommandModule, examples, URL_ARGUMENT } from "./common.js";

/** The environment variable that can hold the token, so that it stays out of `ps` listings. */
export const SERVE_TOKEN_VARIABLE = "MEM_SERVE_TOKEN";
/** The environment variable that can hold the write token. */
export const SERVE_WRITE_TOKEN_VARIABLE = "MEM_SERVE_WRITE_TOKEN";

interface ServeFlags {
  host?: string;
  port?: number;
  token?: string;
  writeToken?: string;
  allowWrites?: boolean;
  maxStreams?: number;
  maxFiles?: number;
  maxBytes?: number;
}

const count = (flag: string) => (value: string) => {
  if (!/^\d{1,15}$/.test(value))
    throw new CommandError(`${flag} must be a whole number, got ${JSON.stringify(value)}`, 2);
  return Number(value);
};

const port = (value: string): number => {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new CommandError(`--port must be a port number from 0 to 65535, got ${JSON.stringify(value)}`, 2);
  }
  return Number(value);
};

/** Resolves when the process is asked to stop. */
const stopSignal = (): Promise<void> =>
  new Promise((done) => {
    process.once("SIGINT", () => done());
    process.once("SIGTERM", () => done());
  });

export const serve: CommandModule = (program, ctx) => {
  program
    .command("serve")
    .description(
      "Open a console in the browser: tenants, files as the model sees them, history, search, live changes",
    )
    .argument(...URL_ARGUMENT)
    .option("--port <port>", "port to listen on (0: any free port)", port, 0)
    .option("--host <host>", "address to bind; any but loopback needs a token", "127.0.0.1")
    .option("--token <token>", `token every request must carry (or set ${SERVE_TOKEN_VARIABLE})`)
    .option(
      "--write-token <token>",
      `a second token whose holders may also restore (or set ${SERVE_WRITE_TOKEN_VARIABLE}); --token stays read-only`,
    )
    .option(
      "--allow-writes",
      "allow restoring earlier versions (needs a token; one is made up when none is given)",
    )
    .option(
      "--max-files <n>",
      "the quota of files agents run under: the tenants list shows its use",
      count("--max-files"),
    )
    .option(
      "--max-bytes <n>",
      "the quota of bytes agents run under: the tenants list shows its use",
      count("--max-bytes"),
    )
    .option(
      "--max-streams <n>",
      "most live-feed streams open at once (default 64); beyond it a viewer is refused",
      count("--max-streams"),
    )
    .addHelpText(
      "after",
      examples(
        "mem serve fs:./memory-demo",
        "mem serve redis://127.0.0.1:6379/notes --allow-writes",
        `${SERVE_TOKEN_VARIABLE}=$(openssl rand -hex 24) mem serve postgres://db/mem --host 0.0.0.0 --port 8080`,
      ),
    )
    .action(async (url: string, flags: ServeFlags) => {
      // The console's server and @mem/mcp load only when `mem serve` runs.
      const [{ checkToken, isLoopbackHost }, { startConsole }] = await Promise.all([
        import("@mem/mcp"),
        import("../serve/server.js"),
      ]);
      const mounts = mountsFileOf(url);
      const spec = mounts === undefined ? parseStoreUrl(url) : undefined;
      const tenant = spec?.tenant;
      const token = flags.token ?? ctx.io.env[SERVE_TOKEN_VARIABLE];
      const writeToken = flags.writeToken ?? ctx.io.env[SERVE_WRITE_TOKEN_VARIABLE];
      const host = flags.host ?? "127.0.0.1";
      // Checked before the store is opened: a refused start touches nothing.
      for (const [given, flag] of [
        [token, "--token"],
        [writeToken, "--write-token"],
      ] as const) {
        if (given === undefined) continue;
        try {
          checkToken(given, flag);
        } catch (error) {
          throw new CommandError((error as Error).message, 2);
        }
      }
      if (token === undefined && writeToken === undefined && !isLoopbackHost(host)) {
        throw new CommandError(
          `--token is required when --host is not a loopback address; host is ${host}`,
          2,
        );
      }
      await ctx.withStore(
        url,
        async (store) => {
          const running = await startConsole(store, {
            host,
            port: flags.port ?? 0,
            ...(token === undefined ? {} : { token }),
            ...(writeToken === undefined ? {} : { writeToken }),
            ...(flags.allowWrites ? { allowWrites: true } : {}),
            ...(flags.maxStreams === undefined ? {} : { maxStreams: flags.maxStreams }),
            store: spec
              ? { name: maskUrl(url), backend: describeStore(spec) }
              : { name: `--mounts ${mounts}`, backend: "a mount table" },
            ...(tenant === undefined ? {} : { tenant }),
            quota: {
              ...(flags.maxFiles === undefined ? {} : { maxFiles: flags.maxFiles }),
              ...(flags.maxBytes === undefined ? {} : { maxTotalBytes: flags.maxBytes }),
            },
          }).catch((error: unknown) => {
            if (error instanceof TypeError) throw new CommandError(error.message, 2);
            throw error;
          });
          // The address goes to stdout (scripts read it); a made-up token is the only way in, so it is shown.
          ctx.print(running.generatedToken ? running.loginUrl : running.url);
          const writes = flags.allowWrites
            ? " (writes allowed)"
            : writeToken !== undefined
              ? " (writes with the write token)"
              : " (read-only)";
          ctx.note(
            `mem: console at ${running.url}${writes}${
              token !== undefined || writeToken !== undefined
                ? `; open ${running.url}?token=<your token> to log in`
                : ""
            } (Ctrl-C stops it)`,
          );
          await stopSignal();
          await running.close();
        },
        // Like `mem mcp`: a store that cannot work fails now. Restores write, so only then may it be created.
        flags.allowWrites || writeToken !== undefined ? { check: true } : { readOnly: true, check: true },
      );
    });
};
