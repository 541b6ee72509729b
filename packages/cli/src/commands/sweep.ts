/**
 * `mem sweep URL --expire-after SECONDS`: reclaims the storage of expired files (SPEC §7). With
 * `--tenants`, purges every tenant whose newest access is older than SECONDS instead.
 */
import { formatSize, type TenantInfo } from "@mem/core";
import { CommandError } from "../context.js";
import {
  type CommandModule,
  EXISTING,
  EXPIRE_AFTER_OPTION,
  examples,
  JSON_OPTION,
  URL_ARGUMENT,
} from "./common.js";
import { describePurge, purgeScope, tenantScope } from "./purge.js";
import { allTenants } from "./tenants.js";

export const sweep: CommandModule = (program, ctx) => {
  program
    .command("sweep")
    .description("Remove the files not accessed for SECONDS and report what was reclaimed")
    .argument(...URL_ARGUMENT)
    .requiredOption(...EXPIRE_AFTER_OPTION)
    .option("--tenants", "purge whole tenants whose newest access is older than SECONDS instead")
    .option("--dry-run", "with --tenants: name the tenants that would be purged, purge none")
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples(
        "mem sweep redis://127.0.0.1:6379/notes --expire-after 2592000",
        "mem sweep postgres://localhost/app --tenants --expire-after 31536000",
      ),
    )
    .action(
      async (
        url: string,
        options: { json?: boolean; expireAfter: number; tenants?: boolean; dryRun?: boolean },
      ) => {
        if (options.tenants) {
          await sweepTenants(url, options.expireAfter, options.dryRun === true, options.json === true);
          return;
        }
        if (options.dryRun) throw new CommandError("--dry-run goes with --tenants.", 2);
        const result = await ctx.withStore(
          url,
          async (store) => {
            if (!store.sweep)
              throw new CommandError("This store has no expiry to sweep (it has no sweep()).");
            return store.sweep();
          },
          // Opened as it is: on Redis every read removes expired files, and the report would miss them.
          { ...EXISTING, bookkeeping: false, expireAfterSeconds: options.expireAfter },
        );
        if (options.json) ctx.printJson(result);
        else ctx.print(`Swept ${result.paths.length} expired file(s), ${formatSize(result.bytes)}.`);
      },
    );

  const sweepTenants = async (url: string, seconds: number, dryRun: boolean, json: boolean) => {
    // Listed with expiry on, as some stores keep access times only then (Redis).
    const { stale, unknown } = await ctx.withStore(
      url,
      async (store) => {
        const cutoff = Date.now() - seconds * 1000;
        const found: TenantInfo[] = [];
        let unknown = 0;
        for await (const tenant of allTenants(store)) {
          if (tenant.lastAccess === undefined) unknown += 1;
          else if (tenant.lastAccess < cutoff) found.push(tenant);
        }
        return { stale: found, unknown };
      },
      { ...EXISTING, bookkeeping: false, expireAfterSeconds: seconds },
    );
    // Purged with expiry off: with it on, reads would reclaim expired files first (Redis) or leave them
    // out (history's versions), and the counts would miss exactly what the sweep is about.
    const purged: { id: string; files: number; bytes: number; versions: number }[] = [];
    if (stale.length > 0) {
      await ctx.withStore(
        url,
        async (store) => {
          for (const tenant of stale) {
            const result = await purgeScope(tenantScope(store, tenant.id), dryRun);
            purged.push({
              id: tenant.id,
              files: result.files,
              bytes: result.bytes,
              versions: result.versions ?? 0,
            });
          }
        },
        { ...EXISTING, bookkeeping: false },
      );
    }
    const report = { purged, unknown };
    if (json) {
      ctx.printJson({ dryRun, tenants: report.purged, unknownLastAccess: report.unknown });
      return;
    }
    for (const t of report.purged) ctx.print(`${t.id}\t${describePurge(t)}`);
    ctx.print(
      `${dryRun ? "Would purge" : "Purged"} ${report.purged.length} tenant(s) not accessed for ${seconds} s.`,
    );
    if (report.unknown > 0) {
      ctx.note(`${report.unknown} tenant(s) kept: this store does not record when they were last accessed.`);
    }
  };
};
