export { type ChangeContext, checkActor, MAX_ACTOR_BYTES } from "./actor.js";
export { type BridgeStoreOptions, bridgeStore, type KeyValuePrimitives } from "./bridge.js";
export { type ChangeEvent, type ChangeHook, emitChange, type MemoryChange } from "./change.js";
export {
  fromContentBlocks,
  type ImageContentBlock,
  type TextContentBlock,
  type ToolResultContentBlock,
  toContentBlocks,
  toolResultContent,
} from "./content-blocks.js";
export {
  COMMAND_CHANNEL,
  type CommandOutcome,
  type CommandTrace,
  STORE_CHANNEL,
  type StoreOperation,
  type StoreTrace,
} from "./diagnostics.js";
// The public surface of @mem/core: exactly what its README documents (test/exports.test.ts pins it).
export {
  AlreadyExistsError,
  ConflictError,
  ErasingError,
  MemoryStoreError,
  NotADirectoryError,
  NotFoundError,
  QuotaExceededError,
  StoreFailureError,
} from "./errors.js";
export {
  DEFAULT_MAX_FILE_BYTES,
  type ExecuteOptions,
  executeCommand,
  type ToolResult,
} from "./execute.js";
export { type Expiry, expiryOf } from "./expiry.js";
export { isStoreError, systemReason } from "./failure.js";
export { ForwardingStore } from "./forwarding-store.js";
export type { ImageMediaType, ToolImage } from "./image.js";
export { applyInTurn, type BytesChange, type InTurn, type TakeTurn, updateInTurn } from "./in-turn.js";
export {
  DEFAULT_LINE_CACHE_BYTES,
  type FileAtToken,
  type HeldLines,
  LINE_CACHE_SMALLEST_BYTES,
  LineCache,
} from "./line-cache.js";
export { LineIndex } from "./line-index.js";
export { linesOfText } from "./lines.js";
export { compareNames, limitListing, orderEntries } from "./listing.js";
export { InMemoryStore } from "./memory-store.js";
export { MEMORY_DURATION_BUCKETS, MEMORY_METRICS, type MemoryMetric } from "./metric-names.js";
export { MountedStore, mountStores } from "./mounts/mount-store.js";
export { type MemorySystemPromptOptions, memoryMountsText, memorySystemPrompt } from "./mounts/prompt.js";
export type { MountAccess, MountInfo, MountOptions, MountTable } from "./mounts/table.js";
export { type InOrder, oneAtATime } from "./one-at-a-time.js";
export { checkOptions, type OptionChecks } from "./options.js";
export { type RenameReply, renameOutcome } from "./outcomes.js";
export { type Command, type CommandName, type Parsed, parseCommand } from "./parse.js";
export { type PathCheck, type ValidateOptions, validatePath } from "./path.js";
export { MEMORY_SYSTEM_PROMPT, MEMORY_TIDINESS_NOTE } from "./prompts.js";
export { readOnlyRefusal, unknownToolResult } from "./protocol-results.js";
export { checkQuotaOptions, exceedsQuota, type QuotaOptions, usageOf } from "./quota.js";
export { backoffDelay, sleep } from "./retry.js";
export { type CompiledQuery, compileQuery, type QueryCheck, searchIndexForm } from "./search/pattern.js";
export {
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  searchMemory,
} from "./search/search.js";
export {
  executeSearch,
  MEMORY_SEARCH_TOOL_DESCRIPTION,
  MEMORY_SEARCH_TOOL_NAME,
  memorySearchInputSchema,
  type SearchToolInputSchema,
  type SearchToolOptions,
} from "./search/tool.js";
export type { BuiltinDetectorName, SensitiveSpan } from "./sensitive/detectors.js";
export {
  type Guard,
  type GuardVerdict,
  guardText,
  resolveGuard,
  type SensitiveDetector,
  type SensitiveOptions,
} from "./sensitive/guard.js";
export { formatSize } from "./size.js";
export { nextTurn, Slices } from "./slices.js";
export type * from "./store.js";
export { checkTenant } from "./tenant.js";
export {
  compareTenantIds,
  DEFAULT_TENANT_PAGE,
  MAX_TENANT_PAGE,
  purgeOptions,
  tenantPage,
  tenantPageOptions,
  unscopedPurgeError,
} from "./tenants.js";
export {
  MEMORY_PROTOCOL_DESCRIPTION,
  MEMORY_TOOL_DESCRIPTION,
  MEMORY_TOOL_OVERWRITING_DESCRIPTION,
  MEMORY_TOOL_READ_ONLY_DESCRIPTION,
  MEMORY_TOOL_TITLE,
  type MemoryToolInputSchema,
  memoryToolInputSchema,
} from "./tool-description.js";
export {
  ancestorsOf,
  isListedName,
  isSameOrInside,
  LISTING_SLICE,
  listingFromFiles,
  listingFromFilesInSlices,
  nameOf,
  parentOf,
  pathOf,
  ROOT,
  rebase,
  segmentsOf,
} from "./tree.js";
export {
  DEFAULT_UPDATE_ATTEMPTS,
  TooManyConflictsError,
  type UpdatableStore,
  type UpdateChange,
  type UpdateOptions,
  type UpdateResult,
  updateWithRetry,
} from "./update.js";
