export { AnthropicMemoryStore, type AnthropicMemoryStoreOptions } from "./anthropic-store.js";
export { HOSTED_MAX_CONTENT_BYTES, HOSTED_MAX_SEGMENTS } from "./paths.js";
export { type HostedVersionInfo, RedactedVersionError } from "./versions.js";
