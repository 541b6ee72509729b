/**
 * The HTTP server's log: JSON lines (pino) on stderr, or on the destination given. Only events and their
 * shape: never file content, tokens, headers, tenant ids or error messages (a store's message may hold a
 * connection string).
 */
import { pino } from "pino";

/** Where log lines go: anything with `write(line)`, such as `process.stderr`. */
export interface LogDestination {
  write(line: string): unknown;
}

export type ServerLog = ReturnType<typeof pino>;

export const createLog = (destination: LogDestination | false | undefined): ServerLog =>
  destination === false
    ? pino({ enabled: false })
    : pino({ base: { name: "mem-mcp" } }, destination ?? process.stderr);

/** Express middleware logging each request refused for its token or its Host header (never the token). */
export const logRefusals =
  (log: ServerLog) =>
  (
    req: { method: string; originalUrl: string },
    res: { statusCode: number; on(event: "finish", f: () => void): unknown },
    next: () => void,
  ): void => {
    res.on("finish", () => {
      if (res.statusCode === 401 || res.statusCode === 403) {
        log.warn(
          {
            event: "auth_failure",
            method: req.method,
            path: req.originalUrl.split("?")[0],
            status: res.statusCode,
          },
          "request refused",
        );
      }
    });
    next();
  };
