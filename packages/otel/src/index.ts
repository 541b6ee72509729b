export { type Instrumentation, type InstrumentOptions, instrument } from "./instrument.js";
export { METRICS } from "./metrics.js";
export { ATTR, INSTRUMENTATION_NAME, SPAN_NAME } from "./names.js";
