export { hashTagOf, keyBaseOf } from "./keys.js";
export {
  RedisStore,
  type RedisStoreOptions,
  recommendedClusterOptions,
  recommendedRedisOptions,
} from "./redis-store.js";
