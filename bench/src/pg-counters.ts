/**
 * PostgreSQL pools whose statements are counted: each client's `query` is wrapped as the pool connects
 * it, so "round trips" are the statements our code sent (connection set-up excluded).
 */
import pg from "pg";

export class PgCounters {
  #roundTrips = 0;
  readonly #pools: pg.Pool[] = [];

  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
  }

  /** A new pool of at most `max` connections whose statements are counted. */
  pool(max = 1): pg.Pool {
    const pool = new pg.Pool({ connectionString: this.#url, max });
    pool.on("error", () => {});
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        this.#roundTrips++;
        return query(...args);
      };
    });
    this.#pools.push(pool);
    return pool;
  }

  async totals(): Promise<Record<string, number>> {
    return { "round trips": this.#roundTrips };
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.#pools.map((pool) => pool.end()));
  }
}
