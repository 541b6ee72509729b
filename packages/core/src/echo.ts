/** How errors echo text the model sent (a path, an `old_str`) without copying all of it. */
import { msg } from "./messages.js";

/** How much of an echoed text an error shows, in UTF-16 code units (SPEC §2, §4). */
export const ECHO_LIMIT = 2048;

/**
 * Text as an error echoes it: its first {@link ECHO_LIMIT} code units through `show`, then
 * `...[{k} more characters]`. Copies at most the shown part, whatever the size of `text`.
 *
 * @example
 * ```ts
 * capEcho("x".repeat(2050)) // "xxx…x...[2 more characters]" (2,048 x)
 * ```
 */
export const capEcho = (text: string, show: (part: string) => string = (part) => part): string =>
  text.length <= ECHO_LIMIT
    ? show(text)
    : show(text.slice(0, ECHO_LIMIT)) + msg.moreCharacters(text.length - ECHO_LIMIT);
