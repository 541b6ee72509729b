/** `mem tenants URL`: the tenants a store holds, in byte order of id, with what the store keeps about each. */
import { formatSize, MAX_TENANT_PAGE, type MemoryStore, type TenantInfo } from "@mem/core";
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

const cell = (value: number | undefined, show: (n: number) => string): string =>
  value === undefined ? "-" : show(value);

export const tenants: CommandModule = (program, ctx) => {
  program
    .command("tenants")
    .description("List the tenants of a store: id, files, bytes and last access where the store keeps them")
    .argument(...URL_ARGUMENT)
    .option(...JSON_OPTION)
    .addHelpText("after", examples("mem tenants postgres://localhost/app", "mem tenants fs:./memory --json"))
    .action(async (url: string, options: { json?: boolean }) => {
      await ctx.withStore(
        url,
        async (store) => {
          const found: TenantInfo[] = [];
          for await (const tenant of allTenants(store)) found.push(tenant);
          if (options.json) {
            ctx.printJson({ tenants: found });
            return;
          }
          if (found.length === 0) {
            ctx.print("No tenants.");
            return;
          }
          const rows = [
            ["TENANT", "FILES", "BYTES", "LAST ACCESS"],
            ...found.map((t) => [
              t.id,
              cell(t.files, String),
              cell(t.bytes, formatSize),
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
