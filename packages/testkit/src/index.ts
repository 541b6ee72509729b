export * from "./ports.js";
export * from "./process.js";
export * from "./redis.js";
export * from "./rgw.js";
export * from "./s3.js";
