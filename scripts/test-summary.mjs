// Prints one closing tally of every package's vitest run (from the JSON reports the shared vitest
// config writes), and fails when a report is missing, a test failed, or no test ran at all.
// With --clean it only removes old reports, so a tally never counts a run from before.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const packages = [
  ...["packages", "apps"].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(root, group, entry.name, "vitest.config.ts")))
      .map((entry) => join(group, entry.name)),
  ),
  ...["examples"].filter((dir) => existsSync(join(root, dir, "vitest.config.ts"))),
];

if (process.argv.includes("--clean")) {
  for (const dir of packages) rmSync(join(root, dir, ".vitest-report.json"), { force: true });
  process.exit(0);
}

let passed = 0;
let failed = 0;
let skipped = 0;
const problems = [];
for (const dir of packages) {
  const file = join(root, dir, ".vitest-report.json");
  if (!existsSync(file)) {
    problems.push(`${dir}: no test report (did its tests run?)`);
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  if (report.numFailedTests > 0 || !report.success) problems.push(`${dir}: ${report.numFailedTests} failed`);
}
for (const problem of problems) console.error(problem);
if (passed === 0) problems.push("no test ran");
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(problems.length > 0 ? 1 : 0);
