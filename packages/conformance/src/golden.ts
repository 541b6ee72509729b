/**
 * Golden transcripts: the expected results of SPEC.md, written by hand as JSON data files under
 * `golden/`, and the loader that checks their shape. The shipped files are embedded in a generated
 * module, so loading them needs no file system (workerd, bundles); only a directory of one's own is read
 * from disk, through the runtime's `node:fs` (Node, Deno and Bun have it).
 */
import { resolveGuard, type SensitiveOptions } from "@mem/core";
import type { ContentSpec } from "./content.js";
import { goldenFiles, searchGoldenFiles } from "./golden/transcripts.generated.js";

/** The `executeCommand` options a transcript may set (small limits keep budget tests cheap). */
export interface TranscriptOptions {
  readonly maxFileBytes?: number;
  readonly viewCharLimit?: number;
  readonly listLimit?: number;
  readonly maxImageBytes?: number;
  /** `create` overwrites an existing file (SPEC §4 create). */
  readonly createOverwrites?: boolean;
  /** The sensitive-data guard (SPEC §7): `false`, or `mode` and built-in `detectors` (no custom ones in JSON). */
  readonly sensitive?: SensitiveOptions | false;
}

/** One tool call and its exact expected result. */
export interface GoldenStep {
  /** The raw `input` of the `tool_use` block, passed to `executeCommand` as is. */
  readonly input: unknown;
  /** The exact expected `content`. In the JSON file, a list of strings stands for its lines joined by `\n`. */
  readonly content: string;
  readonly isError: boolean;
  /** The image of a successful image view, its bytes in base64; absent for every other result. */
  readonly image?: { readonly mediaType: "image/png" | "image/jpeg"; readonly data: string };
  readonly note?: string;
}

export interface GoldenTranscript {
  /** The file name without `.json`. */
  readonly name: string;
  readonly description: string;
  readonly options: TranscriptOptions;
  /** Files written with `store.write(path, bytes, { ifAbsent: true })` before the first step, in order. */
  readonly files: Readonly<Record<string, ContentSpec>>;
  readonly steps: readonly GoldenStep[];
  /**
   * Every listed file after the last step with its exact content; nothing else may be listed. Files under a
   * hidden or `node_modules` name are not listed, so those named here are checked by reading them.
   */
  readonly final: Readonly<Record<string, ContentSpec>>;
  /** Paths that must not exist after the last step (useful for hidden files, which listings never show). */
  readonly absent: readonly string[];
}

/** A golden file that does not have the documented shape. */
export class GoldenFormatError extends Error {
  constructor(source: string, where: string, problem: string) {
    super(`${source}: ${where}: ${problem}`);
    this.name = "GoldenFormatError";
  }
}

interface NodeBuiltins {
  readonly fs: {
    readdirSync(path: string): string[];
    readFileSync(path: string, encoding: "utf8"): string;
  };
  readonly url: { fileURLToPath(url: URL): string };
}

/** `node:fs` and `node:url` where the runtime has them, loaded without a static import. */
const nodeBuiltins = (): NodeBuiltins | null => {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  if (typeof proc?.getBuiltinModule !== "function") return null;
  const fs = proc.getBuiltinModule("node:fs") as NodeBuiltins["fs"] | undefined;
  const url = proc.getBuiltinModule("node:url") as NodeBuiltins["url"] | undefined;
  return fs && url ? { fs, url } : null;
};

const packageGolden = (): string => {
  try {
    const builtins = nodeBuiltins();
    const url = new URL("../golden/", import.meta.url);
    return builtins && url.protocol === "file:" ? builtins.url.fileURLToPath(url) : url.href;
  } catch {
    return "";
  }
};

/**
 * The directory holding the golden transcripts shipped with this package, as a path where the package
 * lies on a file system (otherwise the URL it was loaded from, or `""` inside a bundle).
 */
export const goldenDirectory: string = packageGolden();

const parseFile = (name: string, text: string, source: string): GoldenTranscript => {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new GoldenFormatError(source, "file", `not valid JSON (${(error as Error).message})`);
  }
  return parseGoldenTranscript(value, name.slice(0, -".json".length), source);
};

/**
 * Loads every `*.json` transcript, sorted by name, and checks each one's shape: without a directory, the
 * transcripts shipped with this package (embedded, so no file system is needed); with one, the files of
 * that directory (which needs `node:fs`).
 *
 * @example
 * ```ts
 * import { loadGoldenTranscripts } from "@mem/conformance";
 * for (const t of loadGoldenTranscripts()) console.log(t.name, t.steps.length);
 * ```
 */
/** The `memory_search` transcripts shipped with this package (`golden/search/`), embedded like the others. */
export const loadSearchTranscripts = (): GoldenTranscript[] =>
  searchGoldenFiles.map(([file, text]) => parseFile(file, text, `${goldenDirectory}search/${file}`));

export function loadGoldenTranscripts(directory?: string): GoldenTranscript[] {
  if (directory === undefined) {
    return goldenFiles.map(([file, text]) => parseFile(file, text, `${goldenDirectory}${file}`));
  }
  const builtins = nodeBuiltins();
  if (!builtins) throw new TypeError("loadGoldenTranscripts(directory) needs node:fs; call it without one");
  const dir = directory.endsWith("/") ? directory : `${directory}/`;
  return builtins.fs
    .readdirSync(directory)
    .filter((file) => file.endsWith(".json"))
    .sort()
    .map((file) => parseFile(file, builtins.fs.readFileSync(`${dir}${file}`, "utf8"), `${dir}${file}`));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const isCount = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** True for a canonical memory file path: below `/memories`, NFC, no empty, `.` or `..` segment. */
const isCanonicalFilePath = (path: string): boolean =>
  path.startsWith("/memories/") &&
  path === path.normalize("NFC") &&
  path
    .slice("/memories/".length)
    .split("/")
    .every((name) => name !== "" && name !== "." && name !== "..");

/**
 * Checks the shape of one parsed transcript and returns it typed. `source` names the file in errors.
 *
 * @example
 * ```ts
 * const t = parseGoldenTranscript(
 *   { steps: [{ input: { command: "view", path: "/memories" }, content: "...", isError: false }] },
 *   "example",
 * );
 * ```
 */
export function parseGoldenTranscript(value: unknown, name: string, source: string = name): GoldenTranscript {
  const fail = (where: string, problem: string): never => {
    throw new GoldenFormatError(source, where, problem);
  };
  if (!isRecord(value)) return fail("transcript", "must be a JSON object");
  const known = new Set(["description", "options", "files", "steps", "final", "absent"]);
  for (const key of Object.keys(value)) if (!known.has(key)) fail(key, "unknown field");

  const description = value["description"] ?? "";
  if (typeof description !== "string") fail("description", "must be a string");

  const options = parseOptions(value["options"] ?? {}, fail);
  const files = parseFileMap(value["files"] ?? {}, "files", fail);

  const rawSteps = value["steps"];
  if (!Array.isArray(rawSteps) || rawSteps.length === 0) fail("steps", "must be a non-empty list");
  const steps = (rawSteps as unknown[]).map((step, i) => parseStep(step, `steps[${i}]`, fail));

  const final = parseFileMap(value["final"] ?? {}, "final", fail);
  const rawAbsent = value["absent"] ?? [];
  if (!Array.isArray(rawAbsent)) return fail("absent", "must be a list of paths");
  const absent = rawAbsent.map((path, i) =>
    typeof path === "string" && isCanonicalFilePath(path)
      ? path
      : fail(`absent[${i}]`, "must be a canonical path below /memories"),
  );
  return { name, description: description as string, options, files, steps, final, absent };
}

type Fail = (where: string, problem: string) => never;

function parseOptions(value: unknown, fail: Fail): TranscriptOptions {
  if (!isRecord(value)) return fail("options", "must be an object");
  const options: {
    maxFileBytes?: number;
    viewCharLimit?: number;
    listLimit?: number;
    maxImageBytes?: number;
    createOverwrites?: boolean;
    sensitive?: SensitiveOptions | false;
  } = {};
  const limits = ["maxFileBytes", "viewCharLimit", "listLimit", "maxImageBytes"] as const;
  for (const [key, limit] of Object.entries(value)) {
    if (key === "sensitive") {
      options.sensitive = parseSensitive(limit, fail);
      continue;
    }
    if (key === "createOverwrites") {
      if (typeof limit !== "boolean") fail(`options.${key}`, "must be true or false");
      options.createOverwrites = limit as boolean;
      continue;
    }
    if (!(limits as readonly string[]).includes(key)) {
      fail(`options.${key}`, `unknown option (allowed: ${limits.join(", ")}, createOverwrites, sensitive)`);
    }
    if (!isCount(limit) || limit === 0) fail(`options.${key}`, "must be a positive integer");
    options[key as (typeof limits)[number]] = limit as number;
  }
  return options;
}

function parseSensitive(value: unknown, fail: Fail): SensitiveOptions | false {
  if (value !== false && (!isRecord(value) || "custom" in value)) {
    return fail("options.sensitive", "must be false or an object with mode and detectors");
  }
  try {
    resolveGuard(value as SensitiveOptions | false);
  } catch (error) {
    return fail("options.sensitive", (error as TypeError).message);
  }
  return value as SensitiveOptions | false;
}

function parseFileMap(value: unknown, where: string, fail: Fail): Record<string, ContentSpec> {
  if (!isRecord(value)) return fail(where, "must be an object mapping paths to contents");
  const out: Record<string, ContentSpec> = {};
  for (const [path, spec] of Object.entries(value)) {
    if (!isCanonicalFilePath(path)) fail(`${where}["${path}"]`, "must be a canonical path below /memories");
    out[path] = parseContent(spec, `${where}["${path}"]`, fail);
  }
  return out;
}

function parseContent(value: unknown, where: string, fail: Fail): ContentSpec {
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value)) fail(where, "text has a lone surrogate; use { base64 } for raw bytes");
    return value;
  }
  if (!isRecord(value)) return fail(where, "must be text or a content generator object");
  const keys = Object.keys(value).sort().join(",");
  if (keys === "base64") {
    const b64 = value["base64"];
    if (typeof b64 !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) {
      fail(where, "base64 must be padded standard base64");
    }
    return { base64: b64 as string };
  }
  if (keys === "count,repeat") {
    const { repeat, count } = value;
    if (typeof repeat !== "string" || repeat === "" || LONE_SURROGATE.test(repeat)) {
      fail(`${where}.repeat`, "must be non-empty text");
    }
    if (!isCount(count)) fail(`${where}.count`, "must be a non-negative integer");
    return { repeat: repeat as string, count: count as number };
  }
  if ("lines" in value) {
    for (const key of Object.keys(value)) {
      if (!["lines", "prefix", "newline", "trailingNewline"].includes(key))
        fail(`${where}.${key}`, "unknown field");
    }
    const { lines, prefix, newline, trailingNewline } = value;
    if (!isCount(lines)) fail(`${where}.lines`, "must be a non-negative integer");
    const spec: { lines: number; prefix?: string; newline?: string; trailingNewline?: boolean } = {
      lines: lines as number,
    };
    if (prefix !== undefined) {
      if (typeof prefix !== "string") fail(`${where}.prefix`, "must be a string");
      spec.prefix = prefix as string;
    }
    if (newline !== undefined) {
      if (typeof newline !== "string" || newline === "")
        fail(`${where}.newline`, "must be a non-empty string");
      spec.newline = newline as string;
    }
    if (trailingNewline !== undefined) {
      if (typeof trailingNewline !== "boolean") fail(`${where}.trailingNewline`, "must be a boolean");
      spec.trailingNewline = trailingNewline as boolean;
    }
    return spec;
  }
  if (keys === "concat") {
    const parts = value["concat"];
    if (!Array.isArray(parts)) return fail(`${where}.concat`, "must be a list of contents");
    return { concat: parts.map((part, i) => parseContent(part, `${where}.concat[${i}]`, fail)) };
  }
  return fail(where, "unknown content form (text, base64, repeat/count, lines, concat)");
}

function parseStep(value: unknown, where: string, fail: Fail): GoldenStep {
  if (!isRecord(value)) return fail(where, "must be an object");
  for (const key of Object.keys(value)) {
    if (!["input", "content", "isError", "image", "note"].includes(key))
      fail(`${where}.${key}`, "unknown field");
  }
  if (!("input" in value)) fail(`${where}.input`, "is required (it may be any JSON value)");
  const raw = value["content"];
  let content: string;
  if (typeof raw === "string") content = raw;
  else if (Array.isArray(raw) && raw.length > 0 && raw.every((line) => typeof line === "string")) {
    content = raw.join("\n");
  } else return fail(`${where}.content`, "must be a string or a non-empty list of lines");
  const isError = value["isError"];
  if (typeof isError !== "boolean") fail(`${where}.isError`, "must be true or false");
  const note = value["note"];
  if (note !== undefined && typeof note !== "string") fail(`${where}.note`, "must be a string");
  const step: {
    input: unknown;
    content: string;
    isError: boolean;
    image?: NonNullable<GoldenStep["image"]>;
    note?: string;
  } = { input: value["input"], content, isError: isError as boolean };
  if (value["image"] !== undefined) step.image = parseImage(value["image"], `${where}.image`, fail);
  if (typeof note === "string") step.note = note;
  return step;
}

function parseImage(value: unknown, where: string, fail: Fail): NonNullable<GoldenStep["image"]> {
  if (!isRecord(value) || Object.keys(value).sort().join(",") !== "data,mediaType") {
    return fail(where, "must be an object with mediaType and data");
  }
  const { mediaType, data } = value;
  if (mediaType !== "image/png" && mediaType !== "image/jpeg")
    fail(`${where}.mediaType`, "must be image/png or image/jpeg");
  if (typeof data !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(data) || data.length % 4 !== 0) {
    fail(`${where}.data`, "must be padded standard base64");
  }
  return { mediaType: mediaType as "image/png" | "image/jpeg", data: data as string };
}

/** True for tool input that is a JSON object (what tool protocols such as MCP can carry as arguments). */
export const isObjectInput = (input: unknown): input is Record<string, unknown> =>
  typeof input === "object" && input !== null && !Array.isArray(input);

/**
 * The transcript without its steps whose input is not a JSON object. Tool protocols such as MCP carry a
 * tool's arguments as an object, so those inputs cannot be sent as a tool call (the protocol refuses them).
 * Every such step of the shipped transcripts is an error result that changes nothing, so the rest of the
 * transcript keeps its meaning.
 *
 * @example
 * ```ts
 * for (const t of loadGoldenTranscripts()) await playTranscript(store, objectInputsOnly(t), viaMyProtocol);
 * ```
 */
export function objectInputsOnly(transcript: GoldenTranscript): GoldenTranscript {
  return { ...transcript, steps: transcript.steps.filter((step) => isObjectInput(step.input)) };
}
