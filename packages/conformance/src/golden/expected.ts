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
