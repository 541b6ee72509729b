/**
 * `mem tree URL [PATH]`: the listed files and directories at every depth, with sizes; for the whole
 * store, its count (the files and bytes quotas count, hidden ones included, and history's bytes).
 */
import { formatSize, type ListEntry, ROOT } from "@mem/core";
import { countStore, type StoreCount } from "@mem/open";
import { CommandError } from "../context.js";
import type { Style } from "../style.js";
import { type CommandModule, examples, JSON_OPTION, memoryPath, READ_ONLY, URL_ARGUMENT } from "./common.js";

/** Paths are at most 1024 bytes, so no tree is deeper than this. */
const ALL_DEPTHS = 1024;

export const tree: CommandModule = (program, ctx) => {
  program
    .command("tree")
    .description(
      "Show the whole tree the model can list (hidden names left out, as the tool does), with sizes",
    )
    .argument(...URL_ARGUMENT)
    .argument("[path]", "directory to start from", ROOT)
    .option(...JSON_OPTION)
    .addHelpText(
      "after",
      examples("mem tree fs:./memory-demo", "mem tree redis://127.0.0.1:6379/notes /memories/projects"),
    )
    .action(async (url: string, raw: string, options: { json?: boolean }) => {
      await ctx.withStore(
        url,
        async (store) => {
          const dir = memoryPath(raw, store);
          const listing = await store.list(dir, ALL_DEPTHS);
          if (!listing) {
            const stat = await store.stat(dir);
            throw new CommandError(
              stat ? `${dir} is a file; use mem cat or mem view.` : `${dir} does not exist.`,
            );
          }
          const entries = [...listing.entries].sort((a, b) =>
            a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
          );
          if (options.json) {
            ctx.printJson({ path: dir, size: listing.size, entries });
            return;
          }
          ctx.print(`${ctx.out.bold(dir)}  ${ctx.out.dim(formatSize(listing.size))}`);
          for (const line of drawTree(dir, entries, ctx.out)) ctx.print(line);
          // The whole store's count, the one mem du, mem tenants and the console show.
          if (dir === ROOT) ctx.print(ctx.out.dim(describeCount(await countStore(store))));
        },
        READ_ONLY,
      );
    });
};

const drawTree = (dir: string, entries: readonly ListEntry[], style: Style): string[] => {
  const children = new Map<string, ListEntry[]>();
  for (const entry of entries) {
    const parent = entry.path.slice(0, entry.path.lastIndexOf("/"));
    children.set(parent, [...(children.get(parent) ?? []), entry]);
  }
  const lines: string[] = [];
  const walk = (path: string, indent: string): void => {
    const kids = children.get(path) ?? [];
    kids.forEach((entry, i) => {
      const last = i === kids.length - 1;
      const name = entry.path.slice(path.length + 1);
      const shown = entry.kind === "directory" ? style.cyan(`${name}/`) : name;
      lines.push(`${indent}${last ? "└── " : "├── "}${shown}  ${style.dim(formatSize(entry.size))}`);
      if (entry.kind === "directory") walk(entry.path, `${indent}${last ? "    " : "│   "}`);
    });
  };
  walk(dir, "");
  return lines;
};

/** A store's count in one line: what quotas count, history beside it. */
export const describeCount = (count: StoreCount): string =>
  `${count.files} file${count.files === 1 ? "" : "s"}, ${formatSize(count.bytes)}${count.complete ? " (hidden ones included)" : " (hidden ones not seen)"}${count.historyBytes > 0 ? `; history ${formatSize(count.historyBytes)}` : ""}`;
