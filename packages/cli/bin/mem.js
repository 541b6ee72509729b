#!/usr/bin/env node
// The published entry point: the compiled command (`pnpm build` writes dist/).
import "../dist/main.js";
