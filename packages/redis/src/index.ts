export { recommendedClusterOptions, recommendedRedisOptions } from "./connection.js";
export { hashTagOf, keyBaseOf } from "./keys.js";
export { RedisStore, type RedisStoreOptions } from "./redis-store.js";
