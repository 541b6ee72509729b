import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runConformance } from "@mem/conformance";
import { FsStore } from "@mem/fs";

runConformance({
  name: "FsStore",
  create: () => new FsStore({ root: join(mkdtempSync(join(tmpdir(), "mem-fs-conformance-")), "memories") }),
  peer: (store) => new FsStore({ root: store.root }),
  destroy: (store) => rmSync(join(store.root, ".."), { recursive: true, force: true }),
});
