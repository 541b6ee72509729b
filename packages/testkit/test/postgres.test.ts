import { existsSync, statSync } from "node:fs";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { type PostgresServer, startPostgres } from "../src/postgres.js";

const query = async (url: string, text: string): Promise<pg.QueryResult> => {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
};

describe("startPostgres", () => {
  const started: PostgresServer[] = [];
  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  it("starts a loopback server that takes the random password and only it", async () => {
    const server = await startPostgres({ settings: { application_name: "testkit" } });
    started.push(server);
    expect(server.url).toBe(`postgres://postgres:${server.password}@127.0.0.1:${server.port}/postgres`);
    const rows = await query(
      server.url,
      "SELECT current_user AS u, current_setting('listen_addresses') AS l",
    );
    expect(rows.rows[0]).toEqual({ u: "postgres", l: "127.0.0.1" });
    await expect(query(server.url.replace(server.password, "wrong"), "SELECT 1")).rejects.toMatchObject({
      code: "28P01",
    });
    const dataDir = (await query(server.url, "SHOW data_directory")).rows[0].data_directory as string;
    // As root, the server runs as the unprivileged postgres user that owns its data directory.
    if (process.getuid?.() === 0) expect(statSync(dataDir).uid).not.toBe(0);
  });

  it("keeps committed data across kill() and start(), and removes everything on stop()", async () => {
    const server = await startPostgres();
    started.push(server);
    await query(server.url, "CREATE TABLE t (x int); INSERT INTO t VALUES (42)");
    const dataDir = (await query(server.url, "SHOW data_directory")).rows[0].data_directory as string;
    await server.kill();
    await expect(query(server.url, "SELECT 1")).rejects.toMatchObject({ code: "ECONNREFUSED" });
    await server.start();
    expect((await query(server.url, "SELECT x FROM t")).rows).toEqual([{ x: 42 }]);
    await server.stop();
    expect(existsSync(dataDir)).toBe(false);
    await expect(query(server.url, "SELECT 1")).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });
});
