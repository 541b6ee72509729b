/** The conformance target of FsStore: fresh stores in temporary directories, and the raw medium. */
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConformanceTarget, RawRecord } from "@mem/conformance";
import { FsStore, type FsStoreOptions } from "@mem/fs";

const fresh = (options: Omit<FsStoreOptions, "root"> = {}) =>
  new FsStore({ root: join(mkdtempSync(join(tmpdir(), "mem-fs-conformance-")), "memories"), ...options });

/** Every directory and file under the root, by path, with the file's bytes: the raw medium. */
const dump = async (store: FsStore): Promise<RawRecord[]> => {
  const records: RawRecord[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const stats = lstatSync(path);
      if (stats.isDirectory()) {
        records.push({ key: `${path}/`, value: "" });
        walk(path);
      } else records.push({ key: path, value: stats.isFile() ? readFileSync(path, "latin1") : "" });
    }
  };
  walk(store.root);
  return records;
};

/** FsStore as the conformance suite takes it, in every runtime the tests run it in. */
export const fsTarget: ConformanceTarget<FsStore> = {
  name: "FsStore",
  create: () => fresh(),
  peer: (store) => new FsStore({ root: store.root }),
  destroy: (store) => rmSync(join(store.root, ".."), { recursive: true, force: true }),
  tenants: true,
  exactQuotas: true,
  createExpiring: (expiry) => fresh(expiry),
  erasure: { dump },
};
