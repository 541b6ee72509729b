/**
 * Who changes memory. `executeCommand` hands a `ChangeContext` to each store call that changes something,
 * so a store that records changes (`@mem/history`) can say who made each one and with which command.
 */
import type { CommandName } from "./parse.js";
import { utf8Length } from "./text.js";

/**
 * The optional last argument of `write`, `update`, `delete` and `rename`: the tool command that asked for
 * the change and, when the application named one, its actor. Stores that keep no record ignore it;
 * wrappers pass it on.
 */
export interface ChangeContext {
  /** The tool command behind the call. */
  readonly command?: CommandName | undefined;
  /** Who asked: an agent, a user, a token's name (`ExecuteOptions.actor`). */
  readonly actor?: string | undefined;
}

/** Longest actor name, in UTF-8 bytes: short enough to travel in a file name (see `@mem/history`). */
export const MAX_ACTOR_BYTES = 128;

const CONTROL = /[\u0000-\u001f\u007f]/;

/** Throws a `TypeError` naming `option` unless `actor` is absent or a valid actor name. */
export const checkActor = (actor: unknown, option = "actor"): void => {
  if (actor === undefined) return;
  if (
    typeof actor !== "string" ||
    actor === "" ||
    CONTROL.test(actor) ||
    utf8Length(actor) > MAX_ACTOR_BYTES
  ) {
    throw new TypeError(
      `${option} must be a non-empty string of at most ${MAX_ACTOR_BYTES} UTF-8 bytes without control characters`,
    );
  }
};

/** Checks the attribution options of `ExecuteOptions` (`actor`, `tenant`). */
export const checkAttribution = (options: { actor?: unknown; tenant?: unknown }): void => {
  checkActor(options.actor);
  if (options.tenant !== undefined && (typeof options.tenant !== "string" || options.tenant === "")) {
    throw new TypeError("tenant must be a non-empty string");
  }
};
