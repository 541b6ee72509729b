/**
 * Every string of SPEC.md, defined once. Nothing else in the project builds tool output text.
 */

export const msg = {
  // §2 paths
  notAString: (param: string) => `Error: Parameter \`${param}\` must be a string`,
  outside: (raw: string) =>
    `Error: The path ${raw} is outside the memory directory. All paths must start with /memories`,
  notAllowed: (raw: string, why: string) => `Error: The path ${raw} is not allowed: ${why}`,
  why: {
    dotSegment: "it contains a '.' or '..' segment",
    emptySegment: "it contains an empty segment",
    backslash: "it contains a backslash",
    percent: "it contains a percent-encoded sequence",
    control: "it contains a control character",
    pathTooLong: "it is longer than 1024 bytes",
    nameTooLong: "a name is longer than 255 bytes",
    reserved: "it uses a reserved name",
    tooDeep: (n: number) => `it is more than ${n} levels deep`,
    unstorable: "it contains a character this memory cannot store",
  },
  /** Follows the first 2,048 characters of an echoed path or `old_str` that is longer. */
  moreCharacters: (k: number) => `...[${k} more characters]`,

  // §4 input
  notAnObject: () => "Error: The memory tool input must be a JSON object",
  unknownCommand: (command: string) =>
    `Error: Unknown command \`${command}\`. Valid commands are: view, create, str_replace, insert, delete, rename`,
  missingParam: (name: string, command: string) =>
    `Error: Missing required parameter \`${name}\` for command \`${command}\``,
  wrongType: (name: string, expected: "a string" | "an integer" | "a list of two integers" | "a boolean") =>
    `Error: Parameter \`${name}\` must be ${expected}`,
  notUnicode: (name: string) => `Error: Parameter \`${name}\` is not valid Unicode text`,

  // view
  directoryHeader: (path: string) =>
    `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`,
  moreEntries: (k: number) => `... ${k} more entries not shown. View a subdirectory to see them.`,
  viewRangeOnDirectory: () =>
    "Error: The `view_range` parameter is not allowed when `path` points to a directory.",
  fileHeader: (path: string) => `Here's the content of ${path} with line numbers:`,
  tooManyLines: (path: string) => `File ${path} exceeds maximum line limit of 999,999 lines.`,
  notUtf8: (path: string) => `Error: The file ${path} is not a UTF-8 text file`,
  viewRangeStart: (start: number, end: number, n: number) =>
    `Error: Invalid \`view_range\`: [${start}, ${end}]. Its first element \`${start}\` should be within the range of lines of the file: [1, ${n}]`,
  viewRangeEnd: (start: number, end: number) =>
    `Error: Invalid \`view_range\`: [${start}, ${end}]. Its second element \`${end}\` should be larger or equal than its first \`${start}\``,
  truncated: (last: number, n: number) =>
    `... output truncated after line ${last} of ${n}. Call view with view_range [${last + 1}, ${n}] to see more.`,
  /** After a first line cut to the view budget. */
  lineCut: (line: number, length: number, limit: number) =>
    `... line ${line} is ${length} characters long; only its first ${limit} are shown.`,
  /** A text file over `maxFileBytes`, written around the tool (an import, another program). */
  fileOverLimit: (path: string, bytes: number, limit: number) =>
    `Error: The file ${path} is ${bytes} bytes, which exceeds the limit of ${limit} bytes`,
  viewMissing: (path: string) => `The path ${path} does not exist. Please provide a valid path.`,

  // view of an image
  notAnImage: (path: string) => `Error: The file ${path} is not a valid PNG or JPEG image`,
  imageTooLarge: (path: string, bytes: number, limit: number) =>
    `Error: The image ${path} is ${bytes} bytes, which exceeds the limit of ${limit} bytes`,
  viewRangeOnImage: () => "Error: The `view_range` parameter is not allowed when `path` points to an image.",
  /** The text block before the image block. */
  imageHeader: (path: string) => `Here's the image ${path}:`,
  /** An image result on a surface that carries only text. */
  imageText: (path: string, mediaType: string, bytes: number) =>
    `Here's the image ${path}: ${mediaType}, ${bytes} bytes`,

  // create
  created: (path: string) => `File created successfully at: ${path}`,
  fileExists: (path: string) => `Error: File ${path} already exists`,
  createUnderFile: (path: string, ancestor: string) =>
    `Error: Cannot create ${path}: ${ancestor} is a file, not a directory`,
  tooLarge: (path: string, bytes: number, limit: number) =>
    `Error: File ${path} would be ${bytes} bytes, which exceeds the limit of ${limit} bytes`,

  // str_replace
  replaceMissing: (path: string) => `Error: The path ${path} does not exist. Please provide a valid path.`,
  emptyOldStr: () => "Error: Parameter `old_str` must not be empty",
  noOccurrence: (oldStr: string, path: string) =>
    `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`,
  /** `lines` holds at most the first 20 lines with occurrences; `more` counts the lines left out. */
  multipleOccurrences: (oldStr: string, lines: readonly number[], more = 0) =>
    `No replacement was performed. Multiple occurrences of old_str \`${oldStr}\` in lines: ${lines.join(", ")}${more > 0 ? `, and ${more} more` : ""}. Please ensure it is unique`,
  replaced: () =>
    "The memory file has been edited. Here is the snippet showing the change (with line numbers):",

  // insert
  insertMissing: (path: string) => `Error: The path ${path} does not exist`,
  insertLine: (line: number, n: number) =>
    `Error: Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${n}]`,
  inserted: (path: string) => `The file ${path} has been edited.`,

  // delete
  deleteRoot: () => "Error: Cannot delete the /memories directory itself",
  deleteMissing: (path: string) => `Error: The path ${path} does not exist`,
  deleted: (path: string) => `Successfully deleted ${path}`,

  // rename
  renameRoot: () => "Error: Cannot rename the /memories directory itself",
  renameMissing: (path: string) => `Error: The path ${path} does not exist`,
  destinationExists: (path: string) => `Error: The destination ${path} already exists`,
  intoItself: (path: string) => `Error: Cannot move ${path} into itself`,
  renameUnderFile: (path: string, ancestor: string) =>
    `Error: Cannot rename to ${path}: ${ancestor} is a file, not a directory`,
  renamed: (from: string, to: string) => `Successfully renamed ${from} to ${to}`,

  // §5 storage failures
  storeFailed: (operation: string, path: string, reason: string) =>
    `Error: ${operation} failed for ${path}: ${reason}`,
  unexpected: () => "Error: The memory tool failed unexpectedly",
  /** SPEC §7: a write to a tenant while it is being purged. */
  erasing: () => "Error: This memory is being erased; nothing was changed.",
  /** Stands for the path in a storage failure that happened before the path was validated. */
  unvalidatedPath: () => "the given path",
  reasonConflict: () => "the file kept changing under concurrent edits; nothing was written, try again",
  /** The reason of `updateWithRetry`'s `TooManyConflictsError` (core words its own edits with the one above). */
  reasonTooManyConflicts: (path: string) => `too many concurrent updates of ${path}`,
  /** Appended when the store cannot know whether the change reached storage (SPEC §5). */
  storeFailedMaybeApplied: (operation: string, path: string, reason: string) =>
    `Error: ${operation} failed for ${path}: ${reason}. The change may still be applied; view ${path} to check.`,

  // read-only deployments (an MCP server started read-only)
  readOnly: (command: string) =>
    `Error: This memory is read-only: the \`${command}\` command is not available. Only \`view\` works here.`,

  /** A tool protocol (MCP) asked for a tool other than `memory`. */
  unknownTool: (name: string) => `Error: Unknown tool \`${name}\`. The only tool here is \`memory\``,

  // §7 quotas
  tooManyFiles: (path: string, files: number, limit: number) =>
    `Error: Cannot create ${path}: memory already holds ${files} files, the limit is ${limit}. Delete or merge files first.`,
  tooManyBytes: (path: string, total: number, limit: number) =>
    `Error: Cannot write ${path}: memory would hold ${total} bytes, over the limit of ${limit} bytes. Delete or shorten files first.`,

  // §7 sensitive data
  sensitiveRefused: (path: string, line: number, kind: string) =>
    `Error: Refused to write ${path}: line ${line} looks like ${kind}. Do not store secrets or personal data in memory.`,
  /** A path that holds a secret: `path` has each match replaced by `[REDACTED]` (see docs/decisions.md). */
  sensitivePathRefused: (redactedPath: string, kind: string) =>
    `Error: Refused to write ${redactedPath}: the path looks like ${kind}. Do not store secrets or personal data in memory.`,
  redacted: () => "[REDACTED]",
  redactedNote: (k: number) => `\n(Note: ${k} sensitive value(s) were replaced by [REDACTED] before saving.)`,

  // §8 mounts
  deleteMountPoint: (path: string, mount: string) =>
    `Error: Cannot delete ${path}: a memory is mounted at ${mount}`,
  renameMountPoint: (path: string, mount: string) =>
    `Error: Cannot rename ${path}: a memory is mounted at ${mount}`,
  readOnlyMount: (path: string, mount: string) =>
    `Error: The path ${path} is read-only: it is in the read-only memory mounted at ${mount}`,
  crossMountRename: (from: string, to: string) =>
    `Error: Cannot rename ${from} to ${to}: they are in different memories`,
  mountsHeader: () => "Your memory directory is made of these memories:",
  mountLine: (mount: string, access: "read-write" | "read-only", instructions: string | undefined) =>
    `- ${mount} (${access})${instructions === undefined || instructions === "" ? "" : `: ${instructions}`}`,

  // §9 search (memory_search); `q` is the query already in double quotes (`searchQuoted`)
  searchNotAnObject: () => "Error: The memory_search tool input must be a JSON object",
  searchFound: (n: number, q: string, path: string) => `Found ${n} matching line(s) for ${q} in ${path}:`,
  searchHit: (file: string, line: number, text: string) => `${file}:${line}: ${text}`,
  /** Follows the first 200 characters of a longer hit line. */
  searchLineCut: () => "…",
  searchNone: (q: string, path: string) => `No matches for ${q} in ${path}.`,
  searchMore: (k: number) =>
    `... ${k} more matching line(s) not shown. Narrow the search with a longer query or a path.`,
  searchStopped: (files: number) => `... search stopped after reading ${files} files; narrow it with a path.`,
  searchEmptyQuery: () => "Error: Parameter `query` must not be empty",
  searchLongQuery: () => "Error: Parameter `query` must be at most 1000 characters",
  searchBadRegex: (q: string, reason: string) => `Error: Invalid regular expression ${q}: ${reason}`,
  /** A tool protocol (MCP) offering both tools was asked for another. */
  unknownToolWithSearch: (name: string) =>
    `Error: Unknown tool \`${name}\`. The tools here are \`memory\` and \`memory_search\``,
} as const;

// Tool protocols other than the Messages API (MCP, function calling): the tool described for a model
// that has never seen it. The Messages API's own memory_20250818 tool needs none of this.
const CREATE_NEW =
  "Creates a new file (missing directories are made). It never overwrites: an existing file is an error.";
const CREATE_OVERWRITING =
  "Creates a file (missing directories are made), or replaces the whole content of an existing file. A directory is never replaced.";

const toolCommands = (CREATE: string) => `Commands (set \`command\` and the parameters it names):
- view: \`path\`, optional \`view_range\`. A directory shows its files and subdirectories two levels deep with their sizes; a file shows its lines numbered from 1; a .png, .jpg or .jpeg file shows the image. Long files are cut after a budget of characters; the last line then says which \`view_range\` shows the rest. \`view_range\` is [first, last], 1-based and inclusive; last = -1 means the end of the file. Page through a long file with consecutive ranges.
- create: \`path\`, \`file_text\`. ${CREATE}
- str_replace: \`path\`, \`old_str\`, optional \`new_str\` (default empty). Replaces the one exact occurrence of \`old_str\`; if it occurs zero times or more than once, nothing changes and the result says which lines hold it. Include enough surrounding text to make \`old_str\` unique.
- insert: \`path\`, \`insert_line\`, \`insert_text\`. Inserts the text after line \`insert_line\` (0 inserts at the top).
- delete: \`path\`. Deletes a file, or a directory with everything in it.
- rename: \`old_path\`, \`new_path\`. Moves a file or directory; it never overwrites an existing destination.`;

const fullDescription = (
  create: string,
) => `A persistent memory directory that survives across conversations. Store what you learn (progress, decisions, facts about the user or the task) in text files, and read it back later. Start a task by viewing /memories to see what earlier work left behind.

${TOOL_PATHS}

${toolCommands(create)}

Every result is text, except the view of an image. An error result explains what went wrong; a command that failed changed nothing, unless its error says the change may still have been applied.`;

const TOOL_PATHS = `Every path starts with /memories, the root directory of the memory (for example /memories/project/notes.md). Directories exist while they hold files. Names starting with "." are hidden from directory views.`;

/** The `memory_search` tool for the model (SPEC §9). */
export const searchToolText = {
  name: "memory_search",
  description:
    "Search the text of your memory files. Returns matching lines as path:line: text, in path order.",
  parameters: {
    query: "The text to find within one line (a regular expression in RE2 syntax when `regex` is true).",
    path: "The directory or file to search, under /memories (default /memories).",
    regex: "Treat `query` as a regular expression (default false).",
    case_sensitive: "Match letter case exactly (default false).",
  },
} as const;

export const toolText = {
  title: "Memory",
  description: fullDescription(CREATE_NEW),
  /** The description when the application turned `createOverwrites` on. */
  overwritingDescription: fullDescription(CREATE_OVERWRITING),
  readOnlyDescription: `A persistent memory directory, shared with earlier conversations, that you can read but not change. View /memories first to see what it holds.

${TOOL_PATHS}

Command: view, with \`path\` and optional \`view_range\` (set \`command\` to "view"). A directory shows its files and subdirectories two levels deep with their sizes; a file shows its lines numbered from 1; a .png, .jpg or .jpeg file shows the image. Long files are cut after a budget of characters; the last line then says which \`view_range\` shows the rest. \`view_range\` is [first, last], 1-based and inclusive; last = -1 means the end of the file. Page through a long file with consecutive ranges.

Every result is text, except the view of an image. An error result explains what went wrong.`,
  protocolDescription:
    "The recommended memory protocol: view the memory directory first, record progress as you work, assume your context may be reset at any moment.",
  /** The description of each input parameter in the tool's JSON Schema. */
  parameters: {
    command: "The operation to run.",
    old_str: "str_replace: the exact text to replace; it must occur exactly once.",
    insert_line: "insert: the line after which the text goes; 0 inserts before the first line.",
    path: "The file or directory, starting with /memories (view, create, str_replace, insert, delete).",
    view_range:
      "view of a file only: [first line, last line], 1-based and inclusive; -1 as last means the end.",
    file_text: "create: the whole content of the new file.",
    new_str: "str_replace: the replacement text (default empty).",
    insert_text: "insert: the text to insert.",
    old_path: "rename: the file or directory to move.",
    new_path: "rename: where to move it; it must not exist yet.",
  },
} as const;
