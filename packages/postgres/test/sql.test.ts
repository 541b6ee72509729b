import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCHEMA_VERSION, schemaSql } from "../src/index.js";
import { text as migration } from "../src/sql/migration.sql.generated.js";
import { text as search } from "../src/sql/search.sql.generated.js";
import { text as table } from "../src/sql/table.sql.generated.js";

describe("the embedded SQL", () => {
  it.each([
    ["table.sql", table],
    ["search.sql", search],
    ["migration.sql", migration],
  ])("is src/sql/%s as it stands (after editing it: npx -y pnpm@10 --filter @mem/postgres generate)", (file, text) => {
    expect(text).toBe(readFileSync(new URL(`../src/sql/${file}`, import.meta.url), "utf8"));
  });

  it("fills every placeholder with the store's names", () => {
    const sql = schemaSql({ schema: "app", table: "notes" });
    expect(sql).not.toMatch(/\{\{|\}\}/);
    expect(sql).toContain('CREATE TABLE IF NOT EXISTS "app"."notes" (');
    expect(sql).toContain('CREATE INDEX IF NOT EXISTS "notes_children" ON "app"."notes" ');
    expect(sql).toContain('nextval(\'"app"."notes_versions"\')');
    expect(sql).toContain(`VALUES ('', '', 'v', ${SCHEMA_VERSION})`);
  });
});
