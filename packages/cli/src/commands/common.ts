/** Pieces every command module uses. */
import { checkActor, type MemoryStore, validatePath } from "@mem/core";
import { type Command, InvalidArgumentError } from "commander";
import { CommandError, type Context } from "../context.js";

/** A command module registers one command on the program. */
export type CommandModule = (program: Command, ctx: Context) => void;

/** The `--help` footer: examples, one per line. */
export const examples = (...lines: string[]): string =>
  `\nExample${lines.length > 1 ? "s" : ""}:\n${lines.map((l) => `  $ ${l}`).join("\n")}\n`;

export const JSON_OPTION = ["--json", "print the result as JSON, for scripts"] as const;

const seconds = (raw: string): number => {
  const value = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError("a positive number of seconds, e.g. 2592000 for 30 days");
  }
  return value;
};

/** The store's `expireAfterSeconds` (SPEC §7): store URLs carry no expiry, so commands take it as an option. */
export const EXPIRE_AFTER_OPTION = [
  "--expire-after <seconds>",
  "files not accessed for this long are expired (the store's expireAfterSeconds)",
  seconds,
] as const;
/** `--history`: keep earlier versions of every file changed, as the URL's `?history` does. */
export const HISTORY_OPTION = [
  "--history",
  "keep earlier versions of every file changed (stores that already hold versions always do)",
] as const;

/** `withStore` options of the commands that only read: nothing is created or written, key material included. */
export const READ_ONLY = { readOnly: true } as const;
/** `withStore` options of the commands that change only an existing store: a missing one is not created. */
export const EXISTING = { existing: true } as const;

/** Who runs the commands: recorded with each change (`@mem/history` keeps it with each version). */
export const ACTOR_OPTION = [
  "--actor <name>",
  "who makes the changes, recorded with each one (e.g. an agent's name)",
] as const;
/** Checks an actor name given as `option` (exit code 2 when it is not a short printable name). */
export const actorOption = (actor: string | undefined, option: string): void => {
  try {
    checkActor(actor, option);
  } catch (error) {
    throw new CommandError((error as Error).message, 2);
  }
};

export const URL_ARGUMENT = ["<url>", "store URL, e.g. fs:./memory-demo (see mem --help)"] as const;

/** A memory path from the command line, checked by core's validator (exit code 2 when invalid). */
export const memoryPath = (raw: string, store: MemoryStore): string => {
  const check = validatePath(raw, {
    isReservedName: store.isReservedName?.bind(store),
    pathLimits: store.pathLimits,
  });
  if (!check.ok) throw new CommandError(check.error.replace(/^Error: /, ""), 2);
  return check.path;
};
