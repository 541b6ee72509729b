/** S3's XML: error bodies and escaping. */
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";

export const ERROR_CODES: Record<number, string> = {
  400: "InvalidRequest",
  403: "AccessDenied",
  404: "NoSuchKey",
  409: "ConditionalRequestConflict",
  412: "PreconditionFailed",
  500: "InternalError",
  503: "SlowDown",
};

export const errorXml = (code: string, message: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>${randomUUID()}</RequestId></Error>`;

export const sendError = (res: ServerResponse, status: number, code: string, message: string): void => {
  const body = errorXml(code, message);
  res.writeHead(status, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
  res.end(body);
};

export const xmlEscape = (value: string): string =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c]!,
  );

export const xmlUnescape = (value: string): string =>
  value.replace(
    /&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g,
    (whole, name: string, dec?: string, hex?: string) => {
      if (dec !== undefined) return String.fromCodePoint(Number(dec));
      if (hex !== undefined) return String.fromCodePoint(Number.parseInt(hex, 16));
      return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[name] ?? whole;
    },
  );
