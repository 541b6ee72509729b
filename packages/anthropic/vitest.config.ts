import { memVitestConfig } from "../../vitest.shared.js";

export default memVitestConfig();
