/**
 * `mem tenants URL`: the tenants a store holds, in byte order of id, each with the one count every
 * surface shows (files and bytes as quotas count them, history's bytes beside) and its last access.
 */
import { formatSize, MAX_TENANT_PAGE, type MemoryStore, type TenantInfo } from "@mem/core";
import { countStore } from "@mem/open";
import { CommandError } from "../context.js";
import { type CommandModule, examples, JSON_OPTION, READ_ONLY, URL_ARGUMENT } from "./common.js";

/** Every tenant of `store`, page by page; a `CommandError` when the store cannot list them. */
export async function* allTenants(store: MemoryStore): AsyncGenerator<TenantInfo> {
  if (!store.tenants) throw new CommandError("This store cannot list its tenants (it has no tenants()).");
  let after: string | undefined;
  do {
    const page = await store.tenants(
      after === undefined ? { limit: MAX_TENANT_PAGE } : { after, limit: MAX_TENANT_PAGE },
    );
    yield* page.tenants;
    after = page.next;
  } while (after !== undefined);
}

interface Counted {
  id: string;
  files: number;
  bytes: number;
  historyBytes: number;
  lastAccess?: number;
}

const cell = (value: number | undefined, show: (n: number) => string): string =>
  value === undefined ? "-" : show(value);

export const tenants: CommandModule = (program, ctx) => {
  program
    .command("tenants")
    .description(
      "List the tenants of a store: id, files and bytes as quotas count them, history's bytes, and last access where the store keeps it",
    )
    .argument(...URL_ARGUMENT)
    .option(...JSON_OPTION)
    .addHelpText("after", examples("mem tenants postgres://localhost/app", "mem tenants fs:./memory --json"))
    .action(async (url: string, options: { json?: boolean }) => {
      await ctx.withStore(
        url,
        async (store) => {
          // Files and bytes as every surface counts them (@mem/open's countStore), history beside them.
          const found: Counted[] = [];
          for await (const tenant of allTenants(store)) {
            const { files, bytes, historyBytes } = await countStore(store.scope!(tenant.id));
            found.push({
              id: tenant.id,
              files,
              bytes,
              historyBytes,
              ...(tenant.lastAccess !== undefined && { lastAccess: tenant.lastAccess }),
            });
          }
          if (options.json) {
            ctx.printJson({ tenants: found });
            return;
          }
          if (found.length === 0) {
            ctx.print("No tenants.");
            return;
          }
          const rows = [
            ["TENANT", "FILES", "BYTES", "HISTORY", "LAST ACCESS"],
            ...found.map((t) => [
              t.id,
              cell(t.files, String),
              cell(t.bytes, formatSize),
              cell(t.historyBytes, formatSize),
              cell(t.lastAccess, (ms) => new Date(ms).toISOString()),
            ]),
          ];
          const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
          for (const row of rows)
            ctx.print(
              row
                .map((c, i) => c.padEnd(widths[i]!))
                .join("  ")
                .trimEnd(),
            );
        },
        READ_ONLY,
      );
    });
};
