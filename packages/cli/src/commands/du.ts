/**
 * `mem du URL`: files and bytes held, against the quota the application sets, if given, and apart from
 * them the bytes `@mem/history` keeps (quotas count live files; history has its own bound): @mem/open's
 * `countStore`, the count every surface shows. A store whose files all belong to tenants shows theirs.
 */
import { formatSize } from "@mem/core";
import { countStore, type StoreCount } from "@mem/open";
import { CommandError } from "../context.js";
import { type CommandModule, examples, JSON_OPTION, READ_ONLY, URL_ARGUMENT } from "./common.js";
import { allTenants } from "./tenants.js";

type TenantCount = StoreCount & { id: string };

const count = (name: string) => (text: string) => {
  if (!/^\d+$/.test(text)) throw new CommandError(`${name} must be a whole number, not "${text}".`, 2);
  return Number(text);
};

const share = (used: number, limit: number | undefined): string =>
  limit === undefined ? "" : ` of ${limit} (${limit === 0 ? 100 : Math.round((used / limit) * 100)}%)`;

export const du: CommandModule = (program, ctx) => {
  program
    .command("du")
    .description(
      "Show the files and bytes a store holds (hidden files included), and how much of a quota that is; exit 1 when over it",
    )
    .argument(...URL_ARGUMENT)
    .option(
      "--max-files <n>",
      "the application's file quota (maxFiles), to compare against",
      count("--max-files"),
    )
    .option(
      "--max-bytes <n>",
      "the application's byte quota (maxBytes), to compare against",
      count("--max-bytes"),
    )
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples("mem du redis://127.0.0.1:6379/notes?tenant=alice --max-files 1000 --max-bytes 10485760"),
    )
    .action(async (url: string, options: { maxFiles?: number; maxBytes?: number; json?: boolean }) => {
      const { usage, tenants } = await ctx.withStore(
        url,
        async (store) => {
          const usage = await countStore(store);
          // A store whose files all belong to tenants: their totals, not a bare 0.
          const tenants: TenantCount[] = [];
          if (usage.files === 0 && store.tenants && store.scope) {
            for await (const { id } of allTenants(store))
              tenants.push({ id, ...(await countStore(store.scope(id))) });
          }
          return { usage, tenants };
        },
        READ_ONLY,
      );
      const over =
        (options.maxFiles !== undefined && usage.files > options.maxFiles) ||
        (options.maxBytes !== undefined && usage.bytes > options.maxBytes);
      if (over) ctx.exitCode = 1;
      if (options.json) {
        ctx.printJson({
          files: usage.files,
          bytes: usage.bytes,
          historyBytes: usage.historyBytes,
          ...(options.maxFiles !== undefined && { maxFiles: options.maxFiles }),
          ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }),
          overQuota: over,
          hiddenIncluded: usage.complete,
          ...(tenants.length > 0 && {
            tenants: tenants.map(({ id, files, bytes, historyBytes }) => ({
              id,
              files,
              bytes,
              historyBytes,
            })),
          }),
        });
        return;
      }
      if (tenants.length > 0) {
        ctx.print(
          `The store's own files: none; its ${tenants.length} tenant(s) hold (pass ?tenant=ID for one):`,
        );
        for (const t of tenants) {
          const history = t.historyBytes > 0 ? `  history ${formatSize(t.historyBytes)}` : "";
          ctx.print(`  ${t.id}  files ${t.files}  bytes ${formatSize(t.bytes)}${history}`);
        }
        return;
      }
      ctx.print(`files  ${usage.files}${share(usage.files, options.maxFiles)}`);
      ctx.print(`bytes  ${formatSize(usage.bytes)}${share(usage.bytes, options.maxBytes)}`);
      if (usage.historyBytes > 0)
        ctx.print(`history  ${formatSize(usage.historyBytes)} (not counted by quotas)`);
      if (!usage.complete)
        ctx.print(ctx.out.yellow("Hidden files are not counted: this store cannot enumerate them."));
      if (over) ctx.print(ctx.out.red("Over quota: new files are refused until some are deleted."));
    });
};
