import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { exportedNames, undocumentedNames } from "@mem/testkit";
import { describe, expect, it } from "vitest";

// The public surface is what the README documents: a name added to or removed from an entry point must
// be added to or removed from the README and from this list.
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

describe("public surface", { timeout: 120_000 }, () => {
  it("@mem/core exports exactly the names its README documents", () => {
    const names = exportedNames(fileURLToPath(new URL("../src/index.ts", import.meta.url)));
    expect(names).toEqual([
      "AlreadyExistsError",
      "BuiltinDetectorName",
      "ChangeEvent",
      "ChangeHook",
      "Command",
      "CommandName",
      "ConflictError",
      "DEFAULT_MAX_FILE_BYTES",
      "ExecuteOptions",
      "Expiry",
      "ExpiryOptions",
      "FileData",
      "FileOrListing",
      "ForwardingStore",
      "Guard",
      "GuardVerdict",
      "InMemoryStore",
      "ListEntry",
      "ListOptions",
      "Listing",
      "MEMORY_PROTOCOL_DESCRIPTION",
      "MEMORY_SYSTEM_PROMPT",
      "MEMORY_TIDINESS_NOTE",
      "MEMORY_TOOL_DESCRIPTION",
      "MEMORY_TOOL_READ_ONLY_DESCRIPTION",
      "MEMORY_TOOL_TITLE",
      "MemoryStore",
      "MemoryStoreError",
      "MemoryToolInputSchema",
      "NotADirectoryError",
      "NotFoundError",
      "OptionChecks",
      "PathCheck",
      "QuotaExceededError",
      "QuotaOptions",
      "ROOT",
      "SensitiveDetector",
      "SensitiveOptions",
      "SensitiveSpan",
      "Stat",
      "StoreCapabilities",
      "StoreFailureError",
      "StoredFile",
      "SweepResult",
      "ToolResult",
      "Usage",
      "ValidateOptions",
      "Version",
      "WriteCondition",
      "WriteQuota",
      "ancestorsOf",
      "backoffDelay",
      "checkOptions",
      "checkQuotaOptions",
      "checkTenant",
      "compareNames",
      "emitChange",
      "exceedsQuota",
      "executeCommand",
      "expiryOf",
      "formatSize",
      "guardText",
      "isListedName",
      "isSameOrInside",
      "isStoreError",
      "limitListing",
      "listingFromFiles",
      "memoryToolInputSchema",
      "nameOf",
      "orderEntries",
      "parentOf",
      "pathOf",
      "readOnlyRefusal",
      "rebase",
      "resolveGuard",
      "segmentsOf",
      "sleep",
      "systemReason",
      "unknownToolResult",
      "usageOf",
      "validatePath",
    ]);
    expect(undocumentedNames(readme, names)).toEqual([]);
  });
  it("@mem/core/anthropic exports exactly the names its README documents", () => {
    const names = exportedNames(fileURLToPath(new URL("../src/anthropic/index.ts", import.meta.url)));
    expect(names).toEqual([
      "CONTEXT_MANAGEMENT_BETA",
      "ContextManagementOptions",
      "ContextManagementParams",
      "MEMORY_SYSTEM_PROMPT",
      "MEMORY_TIDINESS_NOTE",
      "MEMORY_TOOL_DEFINITION",
      "MemoryRunnableTool",
      "MemoryToolOptions",
      "MemoryToolResultBlock",
      "contextManagement",
      "handleMemoryToolUse",
      "memoryTool",
    ]);
    expect(undocumentedNames(readme, names)).toEqual([]);
  });
});
