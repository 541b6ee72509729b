export { type ContentSpec, materialize } from "./content.js";
export {
  GoldenFormatError,
  type GoldenStep,
  type GoldenTranscript,
  goldenDirectory,
  isObjectInput,
  loadGoldenTranscripts,
  objectInputsOnly,
  parseGoldenTranscript,
  type TranscriptOptions,
} from "./golden.js";
export { type ConformanceOptions, type ConformanceTarget, runConformance } from "./run-conformance.js";
export {
  expectTree,
  type ListedTree,
  listTree,
  probePaths,
  type StoreSnapshot,
  snapshotStore,
} from "./store-tree.js";
export { playTranscript, type TranscriptExecutor } from "./transcript.js";
