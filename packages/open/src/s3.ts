/** `s3://<bucket>/<prefix>?endpoint=<url>&region=<region>&forcePathStyle=<bool>`: S3 or a compatible server. */

import { importAdapter } from "./adapter.js";
import { type Backend, DEFAULT_PREFIX, expiryOption } from "./backend.js";
import { StoreUrlError } from "./errors.js";
import { decodePart, parseUrl } from "./url.js";

export interface S3Spec {
  kind: "s3";
  bucket: string;
  prefix: string;
  endpoint: string | undefined;
  region: string | undefined;
  forcePathStyle: boolean;
}

const FORM = "s3://<bucket>/<prefix>?endpoint=<url>&region=<region>";
const OPTIONS = new Set(["endpoint", "region", "forcePathStyle"]);
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const s3Backend: Backend<S3Spec> = {
  kind: "s3",
  schemes: ["s3"],
  form: FORM,
  parse(raw) {
    const url = parseUrl(raw, `Use ${FORM}.`);
    if (url.username !== "" || url.password !== "") {
      throw new StoreUrlError(
        "Store URL: s3:// URLs must not hold credentials; use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.",
      );
    }
    if (url.port !== "")
      throw new StoreUrlError(
        "Store URL: an s3:// URL names a bucket, not a host:port; pass the server as ?endpoint=",
      );
    const bucket = url.hostname;
    if (!BUCKET.test(bucket)) {
      throw new StoreUrlError(
        `Store URL: "${bucket}" is not a valid bucket name (3-63 of a-z, 0-9, '.', '-').`,
      );
    }
    for (const key of url.searchParams.keys()) {
      if (!OPTIONS.has(key)) {
        throw new StoreUrlError(
          // The name is not repeated: a password pasted into the query would be one.
          `Store URL: an s3 URL takes only the options ${[...OPTIONS].join(", ")}, tenant and history.`,
        );
      }
    }
    const endpoint = url.searchParams.get("endpoint") ?? undefined;
    if (endpoint !== undefined && !/^https?:\/\/[^/]/.test(endpoint)) {
      throw new StoreUrlError("Store URL: endpoint must be an http:// or https:// URL.");
    }
    const pathStyle = url.searchParams.get("forcePathStyle");
    if (pathStyle !== null && pathStyle !== "true" && pathStyle !== "false") {
      throw new StoreUrlError('Store URL: forcePathStyle must be "true" or "false".');
    }
    let prefix = decodePart(url.pathname.slice(1), raw);
    if (prefix === "") prefix = DEFAULT_PREFIX;
    else if (!prefix.endsWith("/")) prefix += "/";
    return {
      kind: "s3",
      bucket,
      prefix,
      endpoint,
      region: url.searchParams.get("region") ?? undefined,
      // Local servers (MinIO, s3rver) serve buckets by path, not by host name.
      forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === "true",
    };
  },
  describe: (spec) =>
    `S3 bucket ${spec.bucket}, prefix "${spec.prefix}"${spec.endpoint ? ` at ${spec.endpoint}` : ""}`,
  async open(spec, context) {
    const { S3Store } = await importAdapter({ needed: "s3://", name: "@mem/s3" }, () => import("@mem/s3"));
    const region =
      spec.region ?? context.env["AWS_REGION"] ?? context.env["AWS_DEFAULT_REGION"] ?? "us-east-1";
    const accessKeyId = context.env["AWS_ACCESS_KEY_ID"];
    const secretAccessKey = context.env["AWS_SECRET_ACCESS_KEY"];
    const sessionToken = context.env["AWS_SESSION_TOKEN"];
    return new S3Store({
      bucket: spec.bucket,
      prefix: spec.prefix,
      ...expiryOption(context),
      clientConfig: {
        region,
        forcePathStyle: spec.forcePathStyle,
        ...(spec.endpoint !== undefined && { endpoint: spec.endpoint }),
        // Keys given in `env` win; without them the SDK's own chain (profiles, roles...) applies.
        ...(accessKeyId &&
          secretAccessKey && {
            credentials: { accessKeyId, secretAccessKey, ...(sessionToken && { sessionToken }) },
          }),
      },
    });
  },
};
