/**
 * The raw S3 baseline on the same server: GetObject for views, GetObject + PutObject for edits (no
 * conditions), PutObject for creates, CopyObject + DeleteObject for renames, DeleteObject, and
 * ListObjectsV2 for directory views.
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { fail, guarded, listingText, ok, sliceLines } from "./raw-text.js";
import { s3BulkSeeder, s3PrefixOf } from "./s3-seed.js";
import {
  type Backend,
  type ChildEnv,
  relativeOf,
  type Tool,
  type ToolInput,
  type ToolOutcome,
} from "./subject.js";

const rawS3Tool = (client: S3Client, bucket: string, base: string): Tool => {
  const key = (path: string) => base + relativeOf(path);
  const get = async (path: string): Promise<string | null> => {
    try {
      const reply = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key(path) }));
      return (await reply.Body?.transformToString("utf8")) ?? "";
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === "NoSuchKey") return null;
      throw error;
    }
  };
  const put = async (path: string, text: string) => {
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key(path), Body: text }));
  };
  const list = async (path: string): Promise<string> => {
    const prefix = relativeOf(path) === "" ? base : `${base}${relativeOf(path)}/`;
    const entries = new Map<string, number>();
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      for (const object of page.Contents ?? []) {
        const parts = (object.Key ?? "").slice(prefix.length).split("/");
        if (parts.length >= 2) entries.set(`${path}/${parts[0]}/`, 0);
        if (parts.length === 2) entries.set(`${path}/${parts.join("/")}`, object.Size ?? 0);
        else if (parts.length > 2) entries.set(`${path}/${parts[0]}/${parts[1]}/`, 0);
        else entries.set(`${path}/${parts[0]}`, object.Size ?? 0);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : 1)).map(([p, size]) => ({ path: p, size }));
    return listingText(path, sorted);
  };
  const run = async (input: ToolInput): Promise<ToolOutcome> => {
    const path = String(input["path"] ?? input["old_path"]);
    switch (input["command"]) {
      case "view": {
        const text = relativeOf(path) === "" ? null : await get(path);
        return ok(text === null ? await list(path) : sliceLines(text, input["view_range"]));
      }
      case "create":
        await put(path, String(input["file_text"]));
        return ok("created");
      case "str_replace": {
        const text = await get(path);
        const oldStr = String(input["old_str"]);
        if (text === null || !text.includes(oldStr)) return fail("no match");
        await put(
          path,
          text.replace(oldStr, () => String(input["new_str"] ?? "")),
        );
        return ok("edited");
      }
      case "insert": {
        const text = await get(path);
        if (text === null) return fail("missing");
        const lines = text.split("\n");
        lines.splice(Number(input["insert_line"]), 0, String(input["insert_text"]).replace(/\n$/, ""));
        await put(path, lines.join("\n"));
        return ok("edited");
      }
      case "delete":
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key(path) }));
        return ok("deleted");
      case "rename":
        await client.send(
          new CopyObjectCommand({
            Bucket: bucket,
            Key: key(String(input["new_path"])),
            CopySource: `${bucket}/${encodeURIComponent(key(path))}`,
          }),
        );
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key(path) }));
        return ok("renamed");
      default:
        return fail("unknown command");
    }
  };
  return {
    exec: guarded(run),
    readText: get,
  };
};

export const rawS3Backend = async (
  env: ChildEnv & { s3: NonNullable<ChildEnv["s3"]> },
  requestCounters: () => Promise<Record<string, number>>,
  makeClient: () => Promise<{ client: S3Client; destroy: () => void }>,
): Promise<Backend> => {
  const { client, destroy } = await makeClient();
  const seeder = s3BulkSeeder(env, "raw-");
  return {
    async open(ns) {
      return rawS3Tool(client, env.s3.bucket, s3PrefixOf(ns, "raw-"));
    },
    requestCounters,
    bulkSeed: seeder.seed,
    async close() {
      destroy();
      seeder.destroy();
    },
  };
};
