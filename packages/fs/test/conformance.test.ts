import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runConformance } from "@mem/conformance";
import { FsStore, type FsStoreOptions } from "@mem/fs";

const fresh = (options: Omit<FsStoreOptions, "root"> = {}) =>
  new FsStore({ root: join(mkdtempSync(join(tmpdir(), "mem-fs-conformance-")), "memories"), ...options });

runConformance({
  name: "FsStore",
  create: () => fresh(),
  peer: (store) => new FsStore({ root: store.root }),
  destroy: (store) => rmSync(join(store.root, ".."), { recursive: true, force: true }),
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => fresh(expiry),
});
