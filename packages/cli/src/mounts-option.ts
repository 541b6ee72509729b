/**
 * `--mounts <file>` in place of a command's store URL: a mount table file (SPEC §8, read by `@mem/open`'s
 * `openMounts`). The option is taken out of the arguments before commander reads them and its file put
 * where the URL goes, marked so that no URL can be mistaken for it (arguments never hold a NUL).
 */
const MARK = "\u0000mounts\u0000";

/** The arguments with `--mounts FILE` (or `--mounts=FILE`) moved into the command's URL position. */
export const mountsInPlaceOfUrl = (argv: readonly string[]): string[] => {
  const args = [...argv];
  let command = -1;
  for (let i = 2; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--require") i++;
    else if (!arg.startsWith("-")) {
      command = i;
      break;
    }
  }
  if (command < 0) return args;
  for (let i = command + 1; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--") break;
    let file: string | undefined;
    if (arg === "--mounts" && i + 1 < args.length) {
      file = args[i + 1];
      args.splice(i, 2);
    } else if (arg.startsWith("--mounts=")) {
      file = arg.slice("--mounts=".length);
      args.splice(i, 1);
    }
    if (file !== undefined) {
      args.splice(command + 1, 0, `${MARK}${file}`);
      return args;
    }
  }
  return args;
};

/** The mount table file a URL argument stands for, or `undefined` for a store URL. */
export const mountsFileOf = (url: string): string | undefined =>
  url.startsWith(MARK) ? url.slice(MARK.length) : undefined;
