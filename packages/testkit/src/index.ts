export * from "./ports.js";
export * from "./redis.js";
export * from "./s3.js";
export * from "./surface.js";
