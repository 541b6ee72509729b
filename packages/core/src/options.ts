/**
 * Run-time checks of constructor options, shared by every store. Types alone do not protect a caller in
 * JavaScript or one that builds options from configuration, so each constructor checks its options first
 * and throws a `TypeError` that names the option and what is allowed. Messages never echo the value: it
 * may be a URL with a password or a key.
 */

/** The options of a constructor, for checks that name the class and the option. See {@link checkOptions}. */
export interface OptionChecks {
  /** A string; `nonEmpty` refuses `""`, `pattern` restricts it (described by `allowed`). */
  string(
    name: string,
    rule?: { optional?: boolean; nonEmpty?: boolean; pattern?: RegExp; allowed?: string },
  ): void;
  /** A safe integer in `[min, max]`. */
  integer(name: string, rule?: { optional?: boolean; min?: number; max?: number }): void;
  /** One of `values`. */
  oneOf(name: string, values: readonly unknown[], rule?: { optional?: boolean }): void;
  /** A URL whose scheme is one of `schemes` (e.g. `["redis:", "rediss:"]`). */
  url(name: string, schemes: readonly string[], rule?: { optional?: boolean }): void;
  /** A function. */
  function(name: string, rule?: { optional?: boolean }): void;
  /** An object (not `null`, not an array). */
  object(name: string, rule?: { optional?: boolean }): void;
  /** Exactly one of `names` is given. */
  exactlyOne(...names: string[]): void;
}

const describe = (value: unknown): string =>
  value === null || value === undefined
    ? String(value)
    : Array.isArray(value)
      ? "an array"
      : `a ${typeof value}`;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Checks that `options` is an object and returns checks of its fields; each check throws a `TypeError`
 * such as `RedisStore: option "url" must be a redis: or rediss: URL`. `undefined` counts as absent.
 *
 * @example
 * ```ts
 * import { checkOptions } from "@mem/core";
 * const o = checkOptions("MyStore", options);
 * o.string("root", { nonEmpty: true });
 * o.integer("timeoutMs", { optional: true, min: 1 });
 * ```
 */
export function checkOptions(owner: string, options: unknown): OptionChecks {
  if (!isObject(options))
    throw new TypeError(`${owner}: options must be an object, not ${describe(options)}`);
  const fail = (name: string, allowed: string): never => {
    throw new TypeError(`${owner}: option "${name}" must be ${allowed}`);
  };
  const absent = (name: string, optional: boolean | undefined): boolean => {
    if (options[name] !== undefined) return false;
    if (!optional) fail(name, "given");
    return true;
  };
  return {
    string(name, rule = {}) {
      if (absent(name, rule.optional)) return;
      const value = options[name];
      const allowed = rule.allowed ?? (rule.nonEmpty ? "a non-empty string" : "a string");
      if (typeof value !== "string") return fail(name, allowed);
      if (rule.nonEmpty && value === "") fail(name, allowed);
      if (rule.pattern && !rule.pattern.test(value)) fail(name, allowed);
    },
    integer(name, rule = {}) {
      if (absent(name, rule.optional)) return;
      const value = options[name];
      const min = rule.min ?? Number.MIN_SAFE_INTEGER;
      const max = rule.max ?? Number.MAX_SAFE_INTEGER;
      const range =
        rule.max === undefined ? (rule.min === undefined ? "" : ` >= ${min}`) : ` from ${min} to ${max}`;
      if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
        fail(name, `an integer${range}`);
      }
    },
    oneOf(name, values, rule = {}) {
      if (absent(name, rule.optional)) return;
      if (!values.includes(options[name]))
        fail(name, `one of ${values.map((v) => JSON.stringify(v)).join(", ")}`);
    },
    url(name, schemes, rule = {}) {
      if (absent(name, rule.optional)) return;
      const value = options[name];
      const allowed = `a ${schemes.join(" or ")} URL`;
      if (typeof value !== "string" || !URL.canParse(value)) return fail(name, allowed);
      if (!schemes.includes(new URL(value).protocol)) fail(name, allowed);
    },
    function(name, rule = {}) {
      if (absent(name, rule.optional)) return;
      if (typeof options[name] !== "function") fail(name, "a function");
    },
    object(name, rule = {}) {
      if (absent(name, rule.optional)) return;
      if (!isObject(options[name])) fail(name, "an object");
    },
    exactlyOne(...names) {
      const given = names.filter((name) => options[name] !== undefined);
      if (given.length !== 1) {
        const list = names.map((name) => `"${name}"`).join(" or ");
        throw new TypeError(`${owner}: give exactly one of the options ${list}`);
      }
    },
  };
}
