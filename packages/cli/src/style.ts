/** Terminal colours: on for a terminal, off when piped or when NO_COLOR is set (https://no-color.org). */
import { styleText } from "node:util";

export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  magenta(s: string): string;
  cyan(s: string): string;
}

/**
 * Whether to colour what goes to `stream`: a terminal, NO_COLOR unset or empty, TERM not `dumb`.
 *
 * @example
 * ```ts
 * const style = createStyle(useColor(process.stdout, process.env));
 * console.log(style.green("done"));
 * ```
 */
export const useColor = (
  stream: { isTTY?: boolean },
  env: Readonly<Record<string, string | undefined>>,
): boolean => stream.isTTY === true && (env["NO_COLOR"] ?? "") === "" && env["TERM"] !== "dumb";

/** The styles, or plain text for each when `color` is false. */
export const createStyle = (color: boolean): Style => {
  const as =
    (format: Parameters<typeof styleText>[0]) =>
    (s: string): string =>
      // Whether to colour is decided here, for the stream written to; styleText would look at stdout.
      color ? styleText(format, s, { validateStream: false }) : s;
  return {
    bold: as("bold"),
    dim: as("dim"),
    red: as("red"),
    green: as("green"),
    yellow: as("yellow"),
    blue: as("blue"),
    magenta: as("magenta"),
    cyan: as("cyan"),
  };
};
