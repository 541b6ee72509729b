/**
 * Golden result texts of SPEC.md that the programmatic suites check, written from the specification
 * independently of the engine (the golden transcripts hold the rest).
 */
export const created = (path: string): string => `File created successfully at: ${path}`;
export const alreadyExists = (path: string): string => `Error: File ${path} already exists`;
export const inserted = (path: string): string => `The file ${path} has been edited.`;
export const SNIPPET_HEADER =
  "The memory file has been edited. Here is the snippet showing the change (with line numbers):";
export const fileViewHeader = (path: string): string => `Here's the content of ${path} with line numbers:`;
export const reservedName = (raw: string): string =>
  `Error: The path ${raw} is not allowed: it uses a reserved name`;
export const nameTooLong = (raw: string): string =>
  `Error: The path ${raw} is not allowed: a name is longer than 255 bytes`;
export const controlCharacter = (raw: string): string =>
  `Error: The path ${raw} is not allowed: it contains a control character`;
export const OUTSIDE_SUFFIX = " is outside the memory directory. All paths must start with /memories";
export const NOT_ALLOWED_INFIX = " is not allowed: ";

/** The part of a tool result the specification fixes. */
export const outcome = (result: {
  content: string;
  isError: boolean;
}): { content: string; isError: boolean } => ({
  content: result.content,
  isError: result.isError,
});

// SPEC §4 and §7 results the quota suite checks.
export const renamed = (from: string, to: string): string => `Successfully renamed ${from} to ${to}`;
export const deleted = (path: string): string => `Successfully deleted ${path}`;
export const tooLarge = (path: string, bytes: number, limit: number): string =>
  `Error: File ${path} would be ${bytes} bytes, which exceeds the limit of ${limit} bytes`;
export const createUnderFile = (path: string, ancestor: string): string =>
  `Error: Cannot create ${path}: ${ancestor} is a file, not a directory`;
export const replaceMissing = (path: string): string =>
  `Error: The path ${path} does not exist. Please provide a valid path.`;
export const insertLineOutOfRange = (line: number, n: number): string =>
  `Error: Invalid \`insert_line\` parameter: ${line}. It should be within the range of lines of the file: [0, ${n}]`;
export const tooManyFiles = (path: string, files: number, limit: number): string =>
  `Error: Cannot create ${path}: memory already holds ${files} files, the limit is ${limit}. Delete or merge files first.`;
export const tooManyBytes = (path: string, total: number, limit: number): string =>
  `Error: Cannot write ${path}: memory would hold ${total} bytes, over the limit of ${limit} bytes. Delete or shorten files first.`;
export const noOccurrence = (oldStr: string, path: string): string =>
  `No replacement was performed, old_str \`${oldStr}\` did not appear verbatim in ${path}.`;
export const viewMissing = (path: string): string =>
  `The path ${path} does not exist. Please provide a valid path.`;
export const directoryHeader = (path: string): string =>
  `Here're the files and directories up to 2 levels deep in ${path}, excluding hidden items and node_modules:`;

// SPEC §8 results the mounts suite checks.
export const readOnlyMount = (path: string, mount: string): string =>
  `Error: The path ${path} is read-only: it is in the read-only memory mounted at ${mount}`;
export const deleteMountPoint = (path: string, mount: string): string =>
  `Error: Cannot delete ${path}: a memory is mounted at ${mount}`;
export const renameMountPoint = (path: string, mount: string): string =>
  `Error: Cannot rename ${path}: a memory is mounted at ${mount}`;
export const crossMountRename = (from: string, to: string): string =>
  `Error: Cannot rename ${from} to ${to}: they are in different memories`;
