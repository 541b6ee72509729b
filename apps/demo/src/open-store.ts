/**
 * Opens the store a parsed URL names. Each adapter is imported only when used, so a backend that is not
 * installed or not reachable never gets in the way of another.
 */
import { resolve } from "node:path";
import type { MemoryStore } from "@mem/core";
import type { PlainStoreSpec, StoreSpec } from "./store-url.js";

/** The environment variable that holds the encryption key, base64 of 32 bytes. */
export const KEY_VARIABLE = "MEMORY_KEY";

export class StoreSetupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "StoreSetupError";
  }
}

/** Decodes the encryption key; the message of a failure never shows the value. */
export const decodeKey = (value: string | undefined): Uint8Array => {
  if (value === undefined || value.trim() === "") {
    throw new StoreSetupError(
      `encrypted+ stores need a key: set ${KEY_VARIABLE} to 32 random bytes in base64, e.g. export ${KEY_VARIABLE}=$(openssl rand -base64 32)`,
    );
  }
  const text = value.trim();
  const key = Buffer.from(text, "base64");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || key.length !== 32) {
    throw new StoreSetupError(`${KEY_VARIABLE} must be base64 of exactly 32 bytes.`);
  }
  return new Uint8Array(key);
};

export interface OpenOptions {
  env: Record<string, string | undefined>;
  /** The directory relative fs paths are resolved against. */
  cwd: string;
}

export const openStore = async (spec: StoreSpec, options: OpenOptions): Promise<MemoryStore> => {
  if (spec.kind !== "encrypted") return openPlain(spec, options);
  const key = decodeKey(options.env[KEY_VARIABLE]);
  const inner = await openPlain(spec.inner, options);
  const { EncryptedStore } = await load("@mem/encrypted", () => import("@mem/encrypted"));
  return new EncryptedStore(inner, { key });
};

/** The directory an fs spec names, absolute. */
export const fsRoot = (root: string, cwd: string): string => resolve(cwd, root);

const openPlain = async (spec: PlainStoreSpec, options: OpenOptions): Promise<MemoryStore> => {
  switch (spec.kind) {
    case "fs": {
      const { FsStore } = await load("@mem/fs", () => import("@mem/fs"));
      return new FsStore({ root: fsRoot(spec.root, options.cwd) });
    }
    case "redis": {
      const { RedisStore } = await load("@mem/redis", () => import("@mem/redis"));
      return new RedisStore({ url: spec.url, prefix: spec.prefix });
    }
    case "s3": {
      const { S3Store } = await load("@mem/s3", () => import("@mem/s3"));
      const region =
        spec.region ?? options.env["AWS_REGION"] ?? options.env["AWS_DEFAULT_REGION"] ?? "us-east-1";
      return new S3Store({
        bucket: spec.bucket,
        prefix: spec.prefix,
        clientConfig: {
          region,
          forcePathStyle: spec.forcePathStyle,
          ...(spec.endpoint !== undefined && { endpoint: spec.endpoint }),
        },
      });
    }
  }
};

const load = async <T>(name: string, importer: () => Promise<T>): Promise<T> => {
  try {
    return await importer();
  } catch (error) {
    throw new StoreSetupError(
      `Could not load ${name}: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
};
