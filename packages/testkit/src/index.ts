export * from "./memory-script.js";
export * from "./ports.js";
export * from "./postgres.js";
export * from "./redis.js";
export * from "./rgw.js";
export * from "./s3.js";
export * from "./scripted-api.js";
export * from "./surface.js";
