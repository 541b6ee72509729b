/** Bringing a store's table and functions to `SCHEMA_VERSION` on first use. */
import { isStoreError, StoreFailureError } from "@mem/core";
import type pg from "pg";
import { sqlStateOf } from "./failure.js";
import type { SqlNames } from "./names.js";
import { migrationSql, SCHEMA_VERSION, versionSql } from "./schema.js";
import { STORE_TYPES } from "./types.js";

export const ignore = (): void => {};

export const isFatal = (error: unknown): boolean => {
  const severity = (error as { severity?: unknown }).severity;
  return severity === "FATAL" || severity === "PANIC";
};

const readVersion = async (client: pg.PoolClient, names: SqlNames): Promise<number> => {
  try {
    const result = await client.query({ text: versionSql(names), types: STORE_TYPES });
    return Number(result.rows[0]?.["version"] ?? 0);
  } catch (error) {
    if (sqlStateOf(error) === "42P01") return 0;
    throw error;
  }
};

/**
 * Brings the table to `SCHEMA_VERSION`: one version read when it is there already; otherwise the DDL
 * in one transaction under an advisory lock, so processes starting together create it once. The search
 * index is made then, unless `searchIndex` is false; one that is there already stays.
 */
export const migrate = async (pool: pg.Pool, names: SqlNames, searchIndex: boolean): Promise<void> => {
  const client = await pool.connect();
  client.on("error", ignore);
  let broken: Error | undefined;
  try {
    const found = await readVersion(client, names);
    if (found === SCHEMA_VERSION) return;
    if (found > SCHEMA_VERSION) {
      throw new StoreFailureError("the table was created by a newer release of @mem/postgres");
    }
    await client.query("BEGIN");
    try {
      await client.query("SELECT pg_advisory_xact_lock(hashtext($1))", [`mem:${names.key}`]);
      const exists = await client.query({
        text: "SELECT to_regclass($1) IS NOT NULL AS present",
        values: [names.table],
        types: STORE_TYPES,
      });
      const current = exists.rows[0]?.["present"] === true ? await readVersion(client, names) : 0;
      if (current > SCHEMA_VERSION) {
        throw new StoreFailureError("the table was created by a newer release of @mem/postgres");
      }
      if (current < SCHEMA_VERSION) {
        await client.query(migrationSql(names, searchIndex)).catch((error: unknown) => {
          // A role that may use the table but not create or replace what it holds: say what to run.
          if (sqlStateOf(error) !== "42501") throw error;
          throw new StoreFailureError(
            current === 0
              ? "the table does not exist and this role may not create it: run schemaSql() as the database owner"
              : `the table is at schema version ${current}, this release needs ${SCHEMA_VERSION}, and this role may not upgrade it: run schemaSql() as the table's owner`,
          );
        });
      }
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  } catch (error) {
    if (sqlStateOf(error) === undefined && !isStoreError(error, "STORE_FAILURE")) broken = error as Error;
    throw error;
  } finally {
    client.off("error", ignore);
    client.release(broken);
  }
};
