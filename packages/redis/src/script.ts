/**
 * The Lua code that runs every store operation inside Redis: its code, data layout and calling
 * convention are in `lua/store.lua`. The build embeds that file as a string (`lua/store.lua.generated.ts`,
 * written by the package's `generate` script), so the published package reads no file at run time.
 *
 * It goes to the server in one of two forms: a function library (Redis 7's FUNCTION LOAD, then FCALL),
 * whose helpers are built once per server, or a script (EVALSHA, and EVAL on NOSCRIPT), which rebuilds
 * them on every call: for servers without functions or clients not allowed to load them.
 */
import { createHash } from "node:crypto";
import { text } from "./lua/store.lua.generated.js";

const sha1 = (value: string): string => createHash("sha1").update(value).digest("hex");

/** The code as a script: the library, then the line that runs it. */
export const STORE_SCRIPT = `${text}\nreturn main(KEYS, ARGV)\n`;

export const STORE_SCRIPT_SHA = sha1(STORE_SCRIPT);

/**
 * The name of the function and of its library: the code's digest, so stores of different versions that
 * share a server each call their own.
 */
export const STORE_FUNCTION = `mem_store_${STORE_SCRIPT_SHA.slice(0, 16)}`;

/** The code as a function library (FUNCTION LOAD). */
export const STORE_LIBRARY = `#!lua name=${STORE_FUNCTION}\n${text}\nredis.register_function('${STORE_FUNCTION}', main)\n`;
