/**
 * Counting the requests a Worker makes to its storage: a Durable Object namespace whose stubs count
 * their RPCs by method, and a D1 database that counts its round trips. Both pass every call through to
 * the real binding unchanged. No Node built-in: this module runs inside workerd (tests and the bench).
 */

interface Namespace {
  idFromName(name: string): unknown;
  get(id: unknown): unknown;
}

interface Database {
  prepare(query: string): unknown;
  batch(statements: unknown[]): Promise<unknown>;
}

/** `namespace`, passed through, with every RPC to its objects counted by method name in `calls`. */
export function countingNamespace<N>(namespace: N): { namespace: N; calls: Map<string, number> } {
  const real = namespace as unknown as Namespace;
  const calls = new Map<string, number>();
  const counted: Namespace = {
    idFromName: (name) => real.idFromName(name),
    get: (id) => {
      const stub = real.get(id) as Record<string, (...args: unknown[]) => unknown>;
      return new Proxy(stub, {
        get(target, method: string) {
          return (...args: unknown[]) => {
            calls.set(method, (calls.get(method) ?? 0) + 1);
            return target[method]?.(...args);
          };
        },
      });
    },
  };
  return { namespace: counted as unknown as N, calls };
}

/**
 * `db`, passed through, with its round trips counted (every statement of the stores goes in a batch),
 * and the rows D1 says it read for them (`meta.rows_read` of each statement's result).
 */
export function countingD1<D>(db: D): { db: D; roundTrips: () => number; rowsRead: () => number } {
  const real = db as unknown as Database;
  let trips = 0;
  let rows = 0;
  const counted: Database = {
    prepare: (query) => real.prepare(query),
    batch: async (statements) => {
      trips += 1;
      const results = await real.batch(statements);
      for (const result of results as { meta?: { rows_read?: number } }[])
        rows += result.meta?.rows_read ?? 0;
      return results;
    },
  };
  return { db: counted as unknown as D, roundTrips: () => trips, rowsRead: () => rows };
}
