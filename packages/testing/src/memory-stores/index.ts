export { MEMORY_STORES_BETAS } from "./http.js";
export {
  ApiError,
  MAX_CONTENT_BYTES,
  MAX_PATH_BYTES,
  MAX_SEGMENTS,
  type MemoryRecord,
  MemoryStoresModel,
  pathProblem,
  type ScriptedActor,
  type StoreRecord,
  type VersionRecord,
} from "./model.js";
export {
  type RecordedRequest,
  type ScriptedFault,
  type ScriptedMemoryStores,
  type ScriptedMemoryStoresOptions,
  startScriptedMemoryStores,
} from "./server.js";
