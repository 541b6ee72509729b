/**
 * The one Lua script that runs every store operation inside Redis: its code, data layout and calling
 * convention are in `lua/store.lua`. The build embeds that file as a string (`lua/store.lua.generated.ts`,
 * written by the package's `generate` script), so the published package reads no file at run time.
 */
import { createHash } from "node:crypto";
import { text } from "./lua/store.lua.generated.js";

export const STORE_SCRIPT: string = text;

export const STORE_SCRIPT_SHA = createHash("sha1").update(STORE_SCRIPT).digest("hex");
