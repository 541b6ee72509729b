/**
 * `mem purge URL --tenant ID`: erases one tenant (files, hidden files, history, the store's bookkeeping,
 * nested tenants) with the store's `purge()`. `--all` erases every tenant and the unscoped store's own
 * files: the one explicit way to empty a store. `mem purge URL?tenant=ID` erases the tenant the URL names.
 */
import { checkTenant, formatSize, type MemoryStore, type PurgeResult } from "@mem/core";
import { HistoryStore } from "@mem/history";
import { CommandError } from "../context.js";
import { parseStoreUrl } from "../store-url/parse.js";
import { type CommandModule, EXISTING, examples, JSON_OPTION, URL_ARGUMENT } from "./common.js";
import { allTenants } from "./tenants.js";

/** The tenant's scope, wrapped so that the versions `@mem/history` kept in it are counted as versions. */
export const tenantScope = (store: MemoryStore, id: string): MemoryStore => {
  try {
    checkTenant(id);
  } catch (error) {
    throw new CommandError(`--tenant: ${(error as Error).message}`, 2);
  }
  if (!store.scope) throw new CommandError("This store has no tenants (it has no scope()).");
  const scoped = store.scope(id);
  return scoped instanceof HistoryStore ? scoped : new HistoryStore(scoped);
};

/** Purges `scope`; a `CommandError` when the store cannot. */
export const purgeScope = async (scope: MemoryStore, dryRun: boolean): Promise<PurgeResult> => {
  if (!scope.purge) throw new CommandError("This store cannot purge a tenant (it has no purge()).");
  return scope.purge({ dryRun });
};

export const describePurge = (result: PurgeResult): string =>
  `${result.files} file(s), ${result.versions ?? 0} version(s), ${formatSize(result.bytes)}`;

export const purge: CommandModule = (program, ctx) => {
  program
    .command("purge")
    .description("Erase a tenant for good: files, hidden files, history, indexes, counters, nested tenants")
    .argument(...URL_ARGUMENT)
    .option("--tenant <id>", "the tenant to erase")
    .option("--all", "erase every tenant and the store's own files")
    .option("--dry-run", "print what would be removed, remove nothing")
    .option("--yes", "confirm: purging cannot be undone")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem purge postgres://localhost/app --tenant user-42 --dry-run",
        "mem purge postgres://localhost/app --tenant user-42 --yes",
      ),
    )
    .action(
      async (
        url: string,
        options: { tenant?: string; all?: boolean; dryRun?: boolean; yes?: boolean; json?: boolean },
      ) => {
        // A URL naming a tenant (`?tenant=ID`) with neither flag names the tenant to erase.
        const urlTenant =
          options.tenant === undefined && options.all !== true ? parseStoreUrl(url).tenant : undefined;
        if (urlTenant === undefined && (options.tenant === undefined) === (options.all !== true)) {
          throw new CommandError("Give exactly one of --tenant ID and --all, or a URL with ?tenant=ID.", 2);
        }
        const dryRun = options.dryRun === true;
        if (!dryRun && options.yes !== true) {
          throw new CommandError(
            "Purging cannot be undone: add --yes (or see what would go with --dry-run).",
            2,
          );
        }
        const result = await ctx.withStore(
          url,
          async (store) => {
            if (urlTenant !== undefined) {
              // The store opened is already the tenant's scope.
              return purgeScope(store instanceof HistoryStore ? store : new HistoryStore(store), dryRun);
            }
            if (options.tenant !== undefined) return purgeScope(tenantScope(store, options.tenant), dryRun);
            // --all: every tenant, then the store's own files (its bookkeeping and history among them).
            const total = { files: 0, bytes: 0, versions: 0 };
            const ids: string[] = [];
            for await (const tenant of allTenants(store)) ids.push(tenant.id);
            for (const id of ids) {
              const removed = await purgeScope(tenantScope(store, id), dryRun);
              total.files += removed.files;
              total.bytes += removed.bytes;
              total.versions += removed.versions ?? 0;
            }
            const own = (await store.files?.()) ?? [];
            total.files += own.length;
            total.bytes += own.reduce((n, f) => n + f.size, 0);
            if (!dryRun) await store.delete("/memories");
            return total;
          },
          { ...EXISTING, bookkeeping: false },
        );
        if (options.json) ctx.printJson({ dryRun, ...result });
        else ctx.print(`${dryRun ? "Would remove" : "Removed"} ${describePurge(result)}.`);
      },
    );
};
