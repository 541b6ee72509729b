/**
 * `mem log URL` and `mem rollback URL`: the change log `@mem/history` keeps (who changed what, when), and
 * undoing a whole session in one step.
 */
import { ROOT } from "@mem/core";
import type { Change, RollbackOptions } from "@mem/history";
import { CommandError } from "../context.js";
import {
  ACTOR_OPTION,
  actorOption,
  type CommandModule,
  examples,
  JSON_OPTION,
  memoryPath,
  READ_ONLY,
  URL_ARGUMENT,
} from "./common.js";
import { historyOf } from "./history.js";

/** An ISO 8601 time from the command line, as ms since the epoch (exit code 2 when it is not one). */
const isoTime = (raw: string, option: string): number => {
  const ms = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(raw)
    ? Date.parse(raw)
    : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new CommandError(
      `${option}: not an ISO 8601 time (e.g. 2026-11-27T09:30:00Z): ${JSON.stringify(raw)}`,
      2,
    );
  }
  return ms;
};

const line = (c: Change): string =>
  `${c.id}\t${new Date(c.time).toISOString()}\t${c.command}\t${c.path}${c.newPath === undefined ? "" : ` -> ${c.newPath}`}\t${c.actor ?? "-"}\n`;

export const log: CommandModule = (program, ctx) => {
  program
    .command("log")
    .description("List the changes @mem/history recorded, oldest first: who changed which file, when")
    .argument(...URL_ARGUMENT)
    .option("--since <time>", "changes at or after this ISO 8601 time")
    .option("--by <actor>", "only the changes of this actor")
    .option("--path <path>", "only the changes of this file or of the files below this directory")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem log sqlite:./team.db?tenant=alice --since 2026-11-27T09:00:00Z",
        "mem log fs:./memory --by agent-7 --json",
      ),
    )
    .action(async (url: string, options: { since?: string; by?: string; path?: string; json?: boolean }) => {
      actorOption(options.by, "--by");
      const since = options.since === undefined ? undefined : isoTime(options.since, "--since");
      await ctx.withStore(
        url,
        async (store) => {
          const path = options.path === undefined ? undefined : memoryPath(options.path, store);
          const kept = historyOf(store);
          const changes: Change[] = [];
          let after: string | undefined;
          do {
            const page = await kept.changes({
              limit: 1000,
              ...(since !== undefined && { since }),
              ...(options.by !== undefined && { by: options.by }),
              ...(path !== undefined && { path }),
              ...(after !== undefined && { after }),
            });
            if (options.json) changes.push(...page.changes);
            else for (const change of page.changes) ctx.io.stdout.write(line(change));
            after = page.next;
          } while (after !== undefined);
          if (options.json) ctx.printJson({ changes });
        },
        READ_ONLY,
      );
    });
};

export const rollback: CommandModule = (program, ctx) => {
  program
    .command("rollback")
    .description(
      "Undo a session: every file changed since a time (by one actor) back as it was, in one undoable step",
    )
    .argument(...URL_ARGUMENT)
    .option("--to <time>", "the ISO 8601 time to go back to")
    .option("--by <actor>", "only the files this actor changed since --to")
    .option("--undo <id>", "undo the rollback of this id (from its output, or mem log)")
    .option(...ACTOR_OPTION)
    .option("--dry-run", "print what would change, change nothing")
    .option("--yes", "confirm the rollback")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem rollback fs:./memory --to 2026-11-27T09:00:00Z --by agent-7 --dry-run",
        "mem rollback fs:./memory --to 2026-11-27T09:00:00Z --by agent-7 --actor ops --yes",
        "mem rollback fs:./memory --undo 0mwyr3jps-0010-cfe5d37b --yes",
      ),
    )
    .action(
      async (
        url: string,
        options: {
          to?: string;
          by?: string;
          undo?: string;
          actor?: string;
          dryRun?: boolean;
          yes?: boolean;
          json?: boolean;
        },
      ) => {
        if ((options.to === undefined) === (options.undo === undefined)) {
          throw new CommandError("Give exactly one of --to TIME and --undo ID.", 2);
        }
        if (options.undo !== undefined && options.by !== undefined)
          throw new CommandError("--by goes with --to.", 2);
        const dryRun = options.dryRun === true;
        if (!dryRun && options.yes !== true) {
          throw new CommandError(
            "A rollback changes many files: add --yes (or see what would change with --dry-run).",
            2,
          );
        }
        const target: RollbackOptions =
          options.undo !== undefined
            ? { undo: options.undo }
            : { to: isoTime(options.to!, "--to"), ...(options.by !== undefined && { by: options.by }) };
        const result = await ctx.withStore(
          url,
          async (store) =>
            historyOf(store)
              .rollback({
                ...target,
                ...(options.actor !== undefined && { actor: options.actor }),
                ...(dryRun && { dryRun }),
              })
              .catch((error: unknown) => {
                if (error instanceof RangeError)
                  throw new CommandError(`--undo: ${error.message}; see mem log.`, 2);
                if (error instanceof TypeError) throw new CommandError(error.message, 2);
                throw error;
              }),
          READ_ONLY,
        );
        if (options.json) {
          ctx.printJson({ dryRun, id: result.id ?? null, ...result });
          return;
        }
        const verb = dryRun ? "Would" : "";
        for (const path of result.restored)
          ctx.io.stdout.write(`${verb ? "would restore" : "restored"}\t${path}\n`);
        for (const path of result.deleted)
          ctx.io.stdout.write(`${verb ? "would delete" : "deleted"}\t${path}\n`);
        for (const path of result.skipped)
          ctx.io.stdout.write(`skipped\t${path}\t(its earlier content is no longer kept)\n`);
        const count = result.restored.length + result.deleted.length;
        if (dryRun) ctx.print(`Would change ${count} file(s) of ${ROOT}; nothing was changed.`);
        else if (result.id === undefined) ctx.print("Nothing to roll back.");
        else
          ctx.print(
            `Rolled back ${count} file(s) as ${result.id}; undo it with: mem rollback URL --undo ${result.id} --yes`,
          );
      },
    );
};
