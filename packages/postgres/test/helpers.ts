import { type PostgresServer, startPostgres } from "@mem/testkit";
import pg from "pg";
import { PostgresStore, type PostgresStoreOptions } from "../src/index.js";

export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
export const textOf = (data: Uint8Array): string => new TextDecoder().decode(data);

type StoreOptions = Omit<PostgresStoreOptions, "pool" | "connectionString" | "poolConfig">;

/** Statements sent by the clients of a pool, counted by wrapping each client's `query` as it connects. */
export class QueryCounter {
  count = 0;
  readonly errors: string[] = [];
  /** The SQL text of each counted statement, for assertions about what was sent. */
  readonly texts: string[] = [];

  attach(pool: pg.Pool): pg.Pool {
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
      (client as { query: unknown }).query = (...args: unknown[]) => {
        this.count += 1;
        const first = args[0];
        this.texts.push(typeof first === "string" ? first : String((first as { text?: unknown })?.text));
        const result = query(...args);
        result.catch((error: { code?: string }) => this.errors.push(String(error?.code)));
        return result;
      };
    });
    return pool;
  }

  /** Statements sent while `body` ran. */
  async during(body: () => Promise<unknown>): Promise<number> {
    const before = this.count;
    await body();
    return this.count - before;
  }
}

/** A PostgreSQL server for one test file, plus pools and stores that are all closed by `stop()`. */
export class TestPostgres {
  private readonly pools: pg.Pool[] = [];
  private tables = 0;
  private tenants = 0;
  private shared: pg.Pool | undefined;
  private constructor(readonly server: PostgresServer) {}

  static async start(settings?: Record<string, string>): Promise<TestPostgres> {
    return new TestPostgres(await startPostgres(settings ? { settings } : {}));
  }

  pool(config: pg.PoolConfig = {}): pg.Pool {
    const pool = new pg.Pool({ connectionString: this.server.url, max: 4, ...config });
    pool.on("error", () => {});
    this.pools.push(pool);
    return pool;
  }

  /**
   * A one-connection pool whose session logs the plan of every statement it executes back to the
   * client (auto_explain, nested statements included) into `plans`: counting plans counts statements.
   */
  explainingPool(plans: string[]): pg.Pool {
    const pool = this.pool({ max: 1 });
    pool.on("connect", (client) => {
      client.on("notice", (notice) => {
        if (notice.message?.includes("plan:")) plans.push(notice.message);
      });
      void client.query(
        "LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; " +
          "SET auto_explain.log_nested_statements = on; SET client_min_messages = log",
      );
    });
    return pool;
  }

  freshTable(): string {
    this.tables += 1;
    return `t${this.tables}_${process.pid}`;
  }

  freshTenant(): string {
    this.tenants += 1;
    return `tenant-${this.tenants}`;
  }

  /** A store on a fresh tenant of the default table, on a pool shared by the test file (or `pool`). */
  store(options: StoreOptions = {}, pool?: pg.Pool): PostgresStore {
    this.shared ??= this.pool();
    return new PostgresStore({ pool: pool ?? this.shared, tenant: this.freshTenant(), ...options });
  }

  /**
   * Another store over the same table and tenant (its chain of scopes), with a pool of its own that its
   * `close()` ends (its scopes' `close()` does not: the test file's `stop()` ends the pool).
   */
  peer(store: PostgresStore, options: StoreOptions = {}): PostgresStore {
    const [first, ...rest] = store.tenantKey.split("/").filter((id) => id !== "");
    const root = new PostgresStore({
      connectionString: this.server.url,
      poolConfig: { max: 4 },
      ...(first === undefined ? {} : { tenant: first }),
      ...options,
    });
    if (rest.length > 0) this.pools.push(root.pool);
    return rest.reduce((scoped, id) => scoped.scope(id), root);
  }

  async sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
    const client = new pg.Client({ connectionString: this.server.url });
    client.on("error", () => {});
    await client.connect();
    try {
      return await client.query(text, values);
    } finally {
      await client.end();
    }
  }

  async stop(): Promise<void> {
    await Promise.allSettled(this.pools.map((pool) => pool.end()));
    await this.server.stop();
  }
}
