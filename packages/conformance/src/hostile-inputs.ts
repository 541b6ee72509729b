/** fast-check generators for hostile tool inputs: wrong shapes, wrong types, traversal and encoding tricks. */
import fc from "fast-check";

export const COMMANDS = ["view", "create", "str_replace", "insert", "delete", "rename"] as const;

/** Names that are never allowed as a path segment, whatever their neighbours. */
export const FORBIDDEN_SEGMENTS: readonly string[] = [
  ".",
  "..",
  "\uff0e\uff0e", // fullwidth dots: ".." after NFKC
  "\uff0e",
  "\u2025", // two dot leader: ".." after NFKC
  "\ufe52", // small full stop: "." after NFKC
  "%2e%2e",
  "%2E",
  "a%2Fb",
  "%00",
  "%5c",
  "a\\b",
  "..\\..",
  "a\u0000b",
  "\u0000",
  "\u001b[31m",
  "line\nbreak",
  "tab\t",
  "\u007f",
  "\ud800",
  "x\udc00",
  "n".repeat(256),
  "\u00e9".repeat(128),
];

/** Raw paths an attacker or a confused model might send. */
export const HOSTILE_PATHS: readonly string[] = [
  "/etc/passwd",
  "/memories/../etc/passwd",
  "/memories/../../../../etc/shadow",
  "/memories/..",
  "/memories/./notes.md",
  "/memories/\uff0e\uff0e/\uff0e\uff0e/etc/passwd",
  "/memories/%2e%2e/%2e%2e/etc/passwd",
  "/memories/%252e%252e/etc",
  "/memories/..%2fetc",
  "/memories/..\\..\\windows\\win.ini",
  "\\memories\\notes.md",
  "/memories//notes.md",
  "//memories/notes.md",
  "/memories\u0000/notes.md",
  "/memories/notes.md\u0000.txt",
  "/memories/\ud83d",
  "memories/notes.md",
  "/memoriesX/notes.md",
  "/Memories/notes.md",
  "file:///memories/notes.md",
  "~/memories/notes.md",
  " /memories/notes.md",
  "",
  "/",
  ".",
  "..",
  `/memories/${"a/".repeat(600)}z`,
  `/memories/${"x".repeat(5000)}`,
];

const scalar = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e21, 0.5),
);

/** Values of a type no parameter accepts where a string is expected. */
export const nonString = fc.oneof(
  scalar,
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

/** Single code points, lone surrogates included, biased towards ASCII and control characters. */
const anyCodeUnit = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: "binary-ascii", minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0x10ffff }).map((cp) => String.fromCodePoint(cp)) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((cu) => String.fromCharCode(cu)) },
);

/** Arbitrary text, lone surrogates and control characters included. */
export const hostileText = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "",
      "\n",
      "\r\n",
      "$&$1$$",
      "one\n",
      "two",
      "\ud800",
      "a\udc00b",
      "x".repeat(1_048_577),
    ),
  },
);

const segment = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom("notes.md", "dir", "a.md", "new.md", ".hidden", "node_modules", "x"),
  },
  { weight: 2, arbitrary: fc.constantFrom(...FORBIDDEN_SEGMENTS) },
  { weight: 2, arbitrary: fc.string({ unit: anyCodeUnit, minLength: 1, maxLength: 12 }) },
);

/** Paths that name what the hostile suite seeds, so that valid calls act on real files too. */
export const SEEDED_PATHS: readonly string[] = [
  "/memories/notes.md",
  "/memories/notes.md/",
  "/memories/dir",
  "/memories/dir/a.md",
  "/memories/.hidden",
  "/memories/node_modules/pkg.js",
  "/memories/new.md",
  "/memories",
];

/** A path of any shape: some valid, most not, some not even strings. */
export const hostilePath = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SEEDED_PATHS) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_PATHS) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        fc.constantFrom("/memories/", "/memories", "/", "", "memories/"),
        fc.array(segment, { maxLength: 4 }),
      )
      .map(([prefix, segments]) => prefix + segments.join("/")),
  },
  { weight: 1, arbitrary: fc.string({ unit: anyCodeUnit, maxLength: 30 }) },
  { weight: 1, arbitrary: nonString },
);

/** A path below `/memories` with at least one forbidden segment (never last, so it is never a trailing slash). */
export const forbiddenPath = fc
  .tuple(
    fc.array(fc.constantFrom("notes.md", "dir", "x"), { maxLength: 2 }),
    fc.constantFrom(...FORBIDDEN_SEGMENTS),
    fc.array(fc.constantFrom("notes.md", "a.md", "y", ".hidden"), { minLength: 1, maxLength: 2 }),
  )
  .map(([before, bad, after]) => `/memories/${[...before, bad, ...after].join("/")}`);

/** A string that is neither `/memories` nor starts with `/memories/`. */
export const outsidePath = fc
  .oneof(
    fc.string({ unit: anyCodeUnit, maxLength: 30 }),
    fc.string({ unit: anyCodeUnit, maxLength: 10 }).map((s) => `/memories${s}`),
    fc.string({ unit: anyCodeUnit, maxLength: 10 }).map((s) => `/${s}/memories/notes.md`),
  )
  .filter((s) => s !== "/memories" && !s.startsWith("/memories/"));

const lineNumber = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -3, max: 8 }) },
  { weight: 1, arbitrary: fc.oneof(scalar, fc.string({ maxLength: 3 })) },
);

const viewRange = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(lineNumber, lineNumber) },
  { weight: 1, arbitrary: fc.array(lineNumber, { maxLength: 4 }) },
  { weight: 1, arbitrary: nonString },
);

/** Objects shaped like tool inputs, with any subset of the parameters, each possibly of the wrong type. */
export const toolShapedInput = fc.record(
  {
    command: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...COMMANDS) },
      { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 8 }), nonString) },
    ),
    path: hostilePath,
    old_path: hostilePath,
    new_path: hostilePath,
    file_text: fc.oneof({ weight: 4, arbitrary: hostileText }, { weight: 1, arbitrary: nonString }),
    old_str: fc.oneof({ weight: 4, arbitrary: hostileText }, { weight: 1, arbitrary: nonString }),
    new_str: fc.oneof({ weight: 4, arbitrary: hostileText }, { weight: 1, arbitrary: nonString }),
    insert_line: lineNumber,
    insert_text: fc.oneof({ weight: 4, arbitrary: hostileText }, { weight: 1, arbitrary: nonString }),
    view_range: viewRange,
  },
  { requiredKeys: ["command"] },
);

/** Complete inputs for every command on the seeded files, with hostile texts and numbers. */
export const inputOnSeededFiles = fc.record({
  command: fc.constantFrom(...COMMANDS),
  path: fc.constantFrom(...SEEDED_PATHS),
  old_path: fc.constantFrom(...SEEDED_PATHS),
  new_path: fc.oneof(
    fc.constantFrom(...SEEDED_PATHS),
    fc.constantFrom("/memories/moved.md", "/memories/dir/b/c.md"),
  ),
  file_text: hostileText,
  old_str: fc.oneof(fc.constantFrom("one", "two\n", "alpha", "h", "x\n", "\n"), hostileText),
  new_str: hostileText,
  insert_line: lineNumber,
  insert_text: hostileText,
  view_range: viewRange,
});

/** Any JSON value at all, or a tool-shaped object. */
export const anyInput = fc.oneof(
  { weight: 1, arbitrary: fc.jsonValue() },
  { weight: 4, arbitrary: toolShapedInput },
);

/** A tool input for `command` whose path parameters are all `path`, the rest well formed. */
export const inputWithPath = (command: (typeof COMMANDS)[number], path: string): Record<string, unknown> => {
  switch (command) {
    case "view":
      return { command, path };
    case "create":
      return { command, path, file_text: "text\n" };
    case "str_replace":
      return { command, path, old_str: "one", new_str: "1" };
    case "insert":
      return { command, path, insert_line: 0, insert_text: "x" };
    case "delete":
      return { command, path };
    case "rename":
      return { command, old_path: path, new_path: path };
  }
};
