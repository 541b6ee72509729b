/** Checks of the options an application passes: a bad one is a `TypeError` naming it and what is allowed. */
import { checkActor, checkQuotaOptions } from "@mem/core";

const EXECUTE_LIMITS = [
  "maxFileBytes",
  "viewCharLimit",
  "listLimit",
  "conflictRetries",
  "maxImageBytes",
] as const;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function checkBoolean(options: Record<string, unknown>, name: string): void {
  const value = options[name];
  if (value !== undefined && typeof value !== "boolean") {
    throw new TypeError(`${name} must be true or false`);
  }
}

/** Checks `createMemoryMcpServer`'s options. */
export function checkServerOptions(options: unknown): void {
  if (!isRecord(options)) throw new TypeError("options must be an object");
  checkBoolean(options, "readOnly");
  checkBoolean(options, "protocol");
  checkBoolean(options, "search");
  checkBoolean(options, "createOverwrites");
  checkActor(options["actor"]);
  for (const name of EXECUTE_LIMITS) {
    const value = options[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) >= 0)) {
      throw new TypeError(`${name} must be a non-negative integer`);
    }
  }
  // Checked here too, so that a bad quota stops the server at start rather than failing every call.
  checkQuotaOptions(options);
}
