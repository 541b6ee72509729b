/**
 * Every command of `mem`, in the order `--help` lists them. A new command is one module in this
 * directory and one entry here.
 */
import { cat } from "./cat.js";
import type { CommandModule } from "./common.js";
import { copy } from "./copy.js";
import { du } from "./du.js";
import { exportCommand } from "./export.js";
import { grep } from "./grep.js";
import { history, restore } from "./history.js";
import { importCommand } from "./import.js";
import { log, rollback } from "./log.js";
import { mcp } from "./mcp.js";
import { purge } from "./purge.js";
import { putCommand } from "./put.js";
import { rotate } from "./rotate.js";
import { run } from "./run.js";
import { serve } from "./serve.js";
import { sweep } from "./sweep.js";
import { tenants } from "./tenants.js";
import { tree } from "./tree.js";
import { verify } from "./verify.js";
import { view } from "./view.js";

export const COMMANDS: readonly CommandModule[] = [
  tree,
  view,
  cat,
  grep,
  putCommand,
  run,
  exportCommand,
  importCommand,
  copy,
  verify,
  du,
  sweep,
  tenants,
  purge,
  rotate,
  history,
  restore,
  log,
  rollback,
  mcp,
  serve,
];
