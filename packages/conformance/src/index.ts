// The public surface of @mem/conformance: exactly what its README documents (test/exports.test.ts pins it).
export {
  GoldenFormatError,
  type GoldenStep,
  type GoldenTranscript,
  goldenDirectory,
  isObjectInput,
  loadGoldenTranscripts,
  loadSearchTranscripts,
  objectInputsOnly,
  parseGoldenTranscript,
  type TranscriptOptions,
} from "./golden.js";
export {
  type ConformanceOptions,
  type ConformanceSuiteName,
  type ConformanceTarget,
  conformanceSuites,
  runConformance,
} from "./run-conformance.js";
export type { ConformanceRunner } from "./runner.js";
export type { RawRecord } from "./suites/erasure-suite.js";
export { FakeClock } from "./suites/expiry-suite.js";
export { searchExecutor } from "./suites/search-suite.js";
export { playTranscript, type TranscriptExecutor } from "./transcript.js";
