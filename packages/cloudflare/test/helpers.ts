import { env, listDurableObjectIds, runInDurableObject } from "cloudflare:test";

export { countingD1, countingNamespace } from "@mem/testkit/cloudflare-counting";

/** The bindings of the test Worker (see vitest.config.ts). */
export const bindings = env as unknown as {
  MEMORY: DurableObjectNamespace;
  OTHER: DurableObjectNamespace;
  DB: D1Database;
  BROKEN: D1Database;
  LEGACY: D1Database;
  LIMITS: D1Database;
};

let stores = 0;
/** A name no other test's store uses, so each test starts with empty objects. */
export const freshName = (): string => `t${Date.now().toString(36)}x${(stores++).toString(36)}`;

/**
 * Every record the Durable Objects of the namespace hold, read from their SQLite storage around the
 * store: each table's rows, keyed by object, table and row.
 */
export async function dumpObjects(): Promise<{ key: string; value: string }[]> {
  const records: { key: string; value: string }[] = [];
  for (const id of await listDurableObjectIds(bindings.MEMORY)) {
    const stub = bindings.MEMORY.get(id);
    const rows = await runInDurableObject(stub, (_instance, state: DurableObjectState) => {
      const sql = state.storage.sql;
      const tables = sql
        .exec(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite%'",
        )
        .toArray()
        .map((row) => row.name as string);
      return tables.flatMap((table) =>
        sql
          .exec(`SELECT * FROM "${table}"`)
          .toArray()
          .map((row) => ({
            key: `${id.toString()}/${table}/${String(row.path ?? row.key ?? row.id ?? "")}`,
            value: Object.values(row)
              .map((v) => (v instanceof ArrayBuffer ? new TextDecoder().decode(v) : String(v)))
              .join("\u0000"),
          })),
      );
    });
    records.push(...rows);
  }
  return records;
}

/** Every row of the D1 database's tables, keyed by table and the row's key columns. */
export async function dumpD1(): Promise<{ key: string; value: string }[]> {
  const records: { key: string; value: string }[] = [];
  const tables = await bindings.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mem%'",
  ).all();
  for (const { name } of tables.results as { name: string }[]) {
    const rows = await bindings.DB.prepare(`SELECT * FROM "${name}"`).all();
    for (const row of rows.results as Record<string, unknown>[]) {
      const text = (v: unknown) =>
        v instanceof ArrayBuffer
          ? new TextDecoder().decode(v)
          : Array.isArray(v)
            ? new TextDecoder().decode(Uint8Array.from(v))
            : String(v);
      records.push({
        key: `${name}/${String(row.tenant ?? row.parent ?? row.key ?? "")}/${String(row.path ?? row.id ?? "")}`,
        value: Object.values(row).map(text).join("\u0000"),
      });
    }
  }
  return records;
}
