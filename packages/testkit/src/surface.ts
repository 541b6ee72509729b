/** The public surface of a package: what its entry point exports, and whether its README names it. */
import ts from "typescript";

/**
 * Every name, value or type, that the module at `entry` (a TypeScript source file) exports, sorted.
 *
 * @example
 * ```ts
 * exportedNames(fileURLToPath(new URL("../src/index.ts", import.meta.url))); // ["FsStore", "FsStoreOptions", ...]
 * ```
 */
export function exportedNames(entry: string): string[] {
  const program = ts.createProgram([entry], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2023,
    customConditions: ["@mem/source"],
    noEmit: true,
    skipLibCheck: true,
  });
  const source = program.getSourceFile(entry);
  const checker = program.getTypeChecker();
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) throw new Error(`${entry} is not a module`);
  return checker
    .getExportsOfModule(module)
    .map((symbol) => symbol.name)
    .sort();
}

/** The names of `names` that `markdown` never shows as code (inline code or a code block). */
export function undocumentedNames(markdown: string, names: readonly string[]): string[] {
  const code = [...markdown.matchAll(/```[\s\S]*?```|`[^`\n]+`/g)].map((match) => match[0]).join("\n");
  return names.filter(
    (name) => !new RegExp(`(^|[^\\w$])${name.replace(/\$/g, "\\$")}($|[^\\w$])`).test(code),
  );
}
