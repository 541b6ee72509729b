/** `postgres://[user:password@]host:port/database[?sslmode=...]`: PostgreSQL, one table for every tenant. */

import { importAdapter } from "./adapter.js";
import { type Backend, expiryOption } from "./backend.js";
import { StoreUrlError } from "./errors.js";
import { maskUrl } from "./mask.js";
import { parseUrl } from "./url.js";

export interface PostgresSpec {
  kind: "postgres";
  /** The connection string as given (less `?tenant=`); holds credentials, so show it only through `maskUrl`. */
  connectionString: string;
}

const FORM = "postgres://host:port/database (or postgresql://)";

export const postgresBackend: Backend<PostgresSpec> = {
  kind: "postgres",
  schemes: ["postgres", "postgresql"],
  form: FORM,
  parse(raw) {
    const url = parseUrl(raw, `Use ${FORM}.`);
    if (url.hostname === "")
      throw new StoreUrlError(`Store URL "${maskUrl(raw)}" needs a host, e.g. postgres://127.0.0.1:5432/app`);
    if (url.hash !== "") throw new StoreUrlError(`Store URL "${maskUrl(raw)}" takes no fragment.`);
    return { kind: "postgres", connectionString: url.href };
  },
  describe: (spec) => `PostgreSQL ${maskUrl(spec.connectionString)}`,
  async open(spec, context) {
    const { PostgresStore } = await importAdapter(
      { needed: "postgres://", name: "@mem/postgres", install: ["pg"] },
      () => import("@mem/postgres"),
    );
    return new PostgresStore({ connectionString: spec.connectionString, ...expiryOption(context) });
  },
};
