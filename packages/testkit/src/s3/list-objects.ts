/**
 * ListObjectsV2 as S3 does it: s3rver encrypts continuation tokens with DES, which OpenSSL 3 refuses, and
 * orders keys by directory walk; the proxy answers the listing itself.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { S3rverObjectStore } from "./s3rver.js";
import type { ParsedRequest } from "./types.js";
import { sendError, xmlEscape } from "./xml.js";

/** Answers ListObjectsV2 from s3rver's object store, sorted by UTF-8 bytes and paginated as S3 does. */
export const listObjectsV2 = async (
  store: S3rverObjectStore,
  req: IncomingMessage,
  res: ServerResponse,
  parsed: ParsedRequest,
): Promise<number> => {
  const q = new URL(req.url ?? "/", "http://proxy").searchParams;
  const name = parsed.bucket ?? "";
  if (!(await store.getBucket(name))) {
    sendError(res, 404, "NoSuchBucket", "The specified bucket does not exist");
    return 404;
  }
  const prefix = q.get("prefix") ?? "";
  const delimiter = q.get("delimiter") ?? "";
  const requested = Number(q.get("max-keys") ?? "1000");
  const maxKeys = Number.isInteger(requested) && requested >= 0 ? Math.min(requested, 1000) : 1000;
  const token = q.get("continuation-token");
  const after =
    token !== null ? Buffer.from(token, "base64url").toString("utf8") : (q.get("start-after") ?? "");
  const { objects } = await store.listObjects(name, { prefix, maxKeys: Number.POSITIVE_INFINITY });
  const entries: ({ prefix: string } | (typeof objects)[number])[] = [];
  const seenPrefixes = new Set<string>();
  for (const object of objects.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)))) {
    const cut = delimiter === "" ? -1 : object.key.indexOf(delimiter, prefix.length);
    if (cut === -1) {
      entries.push(object);
      continue;
    }
    const common = object.key.slice(0, cut + delimiter.length);
    if (!seenPrefixes.has(common)) {
      seenPrefixes.add(common);
      entries.push({ prefix: common });
    }
  }
  const nameOf = (e: (typeof entries)[number]) => ("prefix" in e ? e.prefix : e.key);
  const remaining = entries.filter((e) => Buffer.compare(Buffer.from(nameOf(e)), Buffer.from(after)) > 0);
  const page = remaining.slice(0, maxKeys);
  const truncated = remaining.length > page.length;
  const urlEncode = q.get("encoding-type") === "url";
  const show = (value: string) =>
    xmlEscape(urlEncode ? encodeURIComponent(value).replace(/%2F/g, "/") : value);
  const parts = [
    `<Name>${xmlEscape(name)}</Name><Prefix>${show(prefix)}</Prefix>`,
    delimiter === "" ? "" : `<Delimiter>${show(delimiter)}</Delimiter>`,
    urlEncode ? "<EncodingType>url</EncodingType>" : "",
    `<KeyCount>${page.length}</KeyCount><MaxKeys>${maxKeys}</MaxKeys><IsTruncated>${truncated}</IsTruncated>`,
    token !== null ? `<ContinuationToken>${xmlEscape(token)}</ContinuationToken>` : "",
    token === null && q.has("start-after") ? `<StartAfter>${show(after)}</StartAfter>` : "",
    truncated
      ? `<NextContinuationToken>${Buffer.from(nameOf(page[page.length - 1]!)).toString("base64url")}</NextContinuationToken>`
      : "",
    ...page.map((e) =>
      "prefix" in e
        ? `<CommonPrefixes><Prefix>${show(e.prefix)}</Prefix></CommonPrefixes>`
        : `<Contents><Key>${show(e.key)}</Key><LastModified>${e.lastModifiedDate.toISOString()}</LastModified>` +
          `<ETag>${xmlEscape(e.metadata.etag)}</ETag><Size>${e.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
    ),
  ];
  const body =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${parts.join("")}</ListBucketResult>`;
  req.resume();
  res.writeHead(200, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
  res.end(body);
  return 200;
};
