/** `instrument()`: core's diagnostics channels turned into OpenTelemetry spans and metrics. */
import { tracingChannel } from "node:diagnostics_channel";
import { performance } from "node:perf_hooks";
import { COMMAND_CHANNEL, type CommandTrace, STORE_CHANNEL, type StoreTrace } from "@mem/core";
import {
  type Attributes,
  context,
  type MeterProvider,
  metrics,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TracerProvider,
  trace,
} from "@opentelemetry/api";
import { createInstruments } from "./metrics.js";
import { ATTR, commandAttributes, errorTypeOf, INSTRUMENTATION_NAME, SPAN_NAME } from "./names.js";
import { OTEL_VERSION } from "./version.js";

export interface InstrumentOptions {
  /** Where spans go. Default: the globally registered tracer provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the globally registered meter provider (`metrics.getMeterProvider()`). */
  meterProvider?: MeterProvider;
  /** Put the canonical path in `memory.path` (and `memory.new_path`). Default `true`. */
  recordPath?: boolean;
  /** Put the tenant in `memory.tenant`. Default `false`: tenant ids are often e-mail addresses. */
  recordTenant?: boolean;
  /** Put the actor in `memory.actor`. Default `false`: actors are often people. */
  recordActor?: boolean;
  /** A child span per storage call (`memory.store.read`, …). Default `true`. */
  storeSpans?: boolean;
}

/** What `instrument()` returns. */
export interface Instrumentation {
  /** Stops recording: later commands make no spans and no measurements. Idempotent. */
  uninstrument(): void;
}

type Handlers<T> = {
  start?: (message: T) => void;
  end?: (message: T) => void;
  asyncStart?: (message: T) => void;
  asyncEnd?: (message: T) => void;
  error?: (message: T) => void;
};

const flag = (value: unknown, name: string, fallback: boolean): boolean => {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") throw new TypeError(`${name} must be a boolean`);
  return value;
};

/**
 * Records every memory command run by `executeCommand` (and everything built on it: `memoryTool`, the MCP
 * server, `mem run`) as an `execute_tool memory` span with a child span per storage call, and as the
 * `memory.*` metrics. Call it once at start-up, after registering the OpenTelemetry SDK.
 *
 * @example
 * ```ts
 * import { instrument } from "@mem/otel";
 * const instrumentation = instrument({ recordTenant: false });
 * // … later, on shutdown:
 * instrumentation.uninstrument();
 * ```
 */
export function instrument(options: InstrumentOptions = {}): Instrumentation {
  if (typeof options !== "object" || options === null) throw new TypeError("options must be an object");
  const recordPath = flag(options.recordPath, "recordPath", true);
  const recordTenant = flag(options.recordTenant, "recordTenant", false);
  const recordActor = flag(options.recordActor, "recordActor", false);
  const storeSpans = flag(options.storeSpans, "storeSpans", true);
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(
    INSTRUMENTATION_NAME,
    OTEL_VERSION,
  );
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(
    INSTRUMENTATION_NAME,
    OTEL_VERSION,
  );
  const instruments = createInstruments(meter);
  const record = { recordPath, recordTenant, recordActor };

  const running = new WeakMap<CommandTrace, { span: Span; started: number }>();
  const calls = new WeakMap<StoreTrace, Span>();

  // A failing tracer must never reach core: diagnostics_channel would rethrow it out of band.
  const guarded =
    <T>(handler: (message: T) => void) =>
    (message: T): void => {
      try {
        handler(message);
      } catch {
        // Telemetry is best effort.
      }
    };

  const commandHandlers: Handlers<CommandTrace> = {
    start: guarded((command) => {
      const span = tracer.startSpan(
        SPAN_NAME,
        { kind: SpanKind.INTERNAL, attributes: commandAttributes(command, record) },
        context.active(),
      );
      running.set(command, { span, started: performance.now() });
    }),
    asyncEnd: guarded((command) => {
      const started = running.get(command);
      if (!started) return;
      running.delete(command);
      const seconds = (performance.now() - started.started) / 1000;
      const { span } = started;
      if (span.isRecording()) {
        const attributes: Attributes = {
          [ATTR.outcome]: command.outcome,
          [ATTR.retries]: command.retries,
          [ATTR.bytesRead]: command.bytesRead,
          [ATTR.bytesWritten]: command.bytesWritten,
        };
        if (recordPath && command.path !== undefined) attributes[ATTR.path] = command.path;
        if (recordPath && command.newPath !== undefined) attributes[ATTR.newPath] = command.newPath;
        if (command.outcome !== "ok") attributes[ATTR.errorType] = command.errorType ?? "_OTHER";
        span.setAttributes(attributes);
        if (command.outcome !== "ok") span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
      instruments.record(command, seconds);
    }),
  };

  const storeHandlers: Handlers<StoreTrace> = {
    start: guarded((call) => {
      const parent = running.get(call.parent)?.span;
      // An unsampled command (or no SDK at all) gets no child spans either.
      if (!parent?.isRecording()) return;
      const attributes: Attributes = { [ATTR.storeOperation]: call.operation };
      if (call.backend !== undefined) attributes[ATTR.storeBackend] = call.backend;
      if (recordPath && call.path !== undefined) attributes[ATTR.path] = call.path;
      const span = tracer.startSpan(
        `memory.store.${call.operation}`,
        { kind: SpanKind.INTERNAL, attributes },
        trace.setSpan(context.active(), parent),
      );
      calls.set(call, span);
    }),
    error: guarded((call) => {
      const span = calls.get(call);
      if (!span) return;
      // The type only: a store's message may name a host or hold a connection string.
      span.setAttribute(ATTR.errorType, errorTypeOf((call as StoreTrace & { error?: unknown }).error));
      span.setStatus({ code: SpanStatusCode.ERROR });
    }),
    asyncEnd: guarded((call) => {
      const span = calls.get(call);
      if (!span) return;
      calls.delete(call);
      span.end();
    }),
  };

  const commands = tracingChannel<CommandTrace>(COMMAND_CHANNEL);
  const stores = tracingChannel<StoreTrace>(STORE_CHANNEL);
  commands.subscribe(commandHandlers as Parameters<typeof commands.subscribe>[0]);
  if (storeSpans) stores.subscribe(storeHandlers as Parameters<typeof stores.subscribe>[0]);
  let active = true;
  return {
    uninstrument() {
      if (!active) return;
      active = false;
      commands.unsubscribe(commandHandlers as Parameters<typeof commands.unsubscribe>[0]);
      if (storeSpans) stores.unsubscribe(storeHandlers as Parameters<typeof stores.unsubscribe>[0]);
    },
  };
}
