/** The value of `--name=value` on the command line, or `undefined`. */
export const flag = (name: string): string | undefined =>
  process.argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
