/**
 * DeleteObjects one key after another: s3rver deletes a batch in parallel, its clean-up of empty
 * directories then races, and its XML parser turns keys like `0012` into numbers.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { S3rverObjectStore } from "./s3rver.js";
import type { ParsedRequest } from "./types.js";
import { sendError, xmlEscape, xmlUnescape } from "./xml.js";

/** Answers DeleteObjects by deleting its keys one after another through s3rver's object store. */
export const deleteObjects = async (
  store: S3rverObjectStore,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: ParsedRequest,
): Promise<number> => {
  const name = parsed.bucket ?? "";
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const xml = Buffer.concat(chunks).toString("utf8");
  if (!(await store.getBucket(name))) {
    sendError(res, 404, "NoSuchBucket", "The specified bucket does not exist");
    return 404;
  }
  const objects = [...xml.matchAll(/<Object>([\s\S]*?)<\/Object>/g)].map(
    (m) => /<Key>([\s\S]*?)<\/Key>/.exec(m[1]!)?.[1],
  );
  if (objects.length === 0 || objects.length > 1000 || objects.some((k) => k === undefined)) {
    sendError(res, 400, "MalformedXML", "The XML you provided was not well-formed");
    return 400;
  }
  const quiet = /<Quiet>\s*true\s*<\/Quiet>/i.test(xml);
  const keys = objects.map((k) => xmlUnescape(k!));
  for (const key of keys) {
    if (await store.existsObject(name, key)) await store.deleteObject(name, key);
  }
  const deleted = quiet ? "" : keys.map((k) => `<Deleted><Key>${xmlEscape(k)}</Key></Deleted>`).join("");
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${deleted}</DeleteResult>`;
  res.writeHead(200, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
  res.end(body);
  return 200;
};
