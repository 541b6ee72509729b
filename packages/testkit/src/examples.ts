import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/**
 * Runs `script` (a path relative to `packageDir`, such as `examples/quick-start.ts`) as a user would, with
 * tsx and the workspace's sources, from `packageDir`; returns what it printed.
 */
export const runExample = async (packageDir: URL, script: string): Promise<string> => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", "tsx", "--conditions=@mem/source", script],
    { cwd: fileURLToPath(packageDir) },
  );
  return stdout;
};
