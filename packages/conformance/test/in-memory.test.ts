import { runConformance } from "../src/index.js";
import { inMemoryTarget } from "./helpers.js";

runConformance(inMemoryTarget);
