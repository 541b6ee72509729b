import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeCommand } from "@mem/core";
import { FsStore } from "@mem/fs";
import { instrument } from "@mem/otel";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { ConsoleSpanExporter } from "@opentelemetry/sdk-trace-base";

// The SDK first, with an exporter that prints every span; then instrument(), once, at start-up.
const sdk = new NodeSDK({ traceExporter: new ConsoleSpanExporter() });
sdk.start();
const instrumentation = instrument();

const store = new FsStore({ root: await mkdtemp(join(tmpdir(), "memories-")) });
await executeCommand(store, { command: "create", path: "/memories/notes.md", file_text: "- tea\n" });
await executeCommand(store, { command: "view", path: "/memories/missing.md" });
// → a span "execute_tool memory" per command, with a child per storage call ("memory.store.write", ...)

instrumentation.uninstrument(); // on shutdown, or to stop recording
await sdk.shutdown(); // flushes the spans to the console
