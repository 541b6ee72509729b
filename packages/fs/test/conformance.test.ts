import { runConformance } from "@mem/conformance";
import { fsTarget } from "./helpers/conformance-target.js";

runConformance(fsTarget);
