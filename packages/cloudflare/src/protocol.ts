/**
 * What crosses the RPC boundary between the Worker and a `MemoryObject`: plain data only. Core's typed
 * errors travel as `WireError` and are rebuilt on the Worker side, so `executeCommand` on either side sees
 * the same errors the store threw.
 */
import {
  AlreadyExistsError,
  ConflictError,
  ErasingError,
  type ExecuteOptions,
  isStoreError,
  type MemoryChange,
  NotADirectoryError,
  NotFoundError,
  QuotaExceededError,
  StoreFailureError,
  type ToolResult,
  type Usage,
} from "@mem/core";
import type { RequestTime } from "./object-files.js";

/** Where a request goes: the object's name, its parent's (`null` for a root) and its tenant id there. */
export interface ObjectAddress {
  readonly self: string;
  readonly parent: string | null;
  readonly id: string | null;
}

/** The `executeCommand` options that reach the object with each command (no functions: see README). */
export type RemoteOptions = Omit<ExecuteOptions, "onChange" | "onUnexpectedError">;

/** The object's answer to one tool command. */
export interface CommandReply {
  readonly result: ToolResult;
  /** The change the command made, for the Worker's `onChange`. */
  readonly change?: MemoryChange;
  /** The name and message of an error the model saw only as a generic reason, for `onUnexpectedError`. */
  readonly unexpected?: { readonly name: string; readonly message: string };
  /** A bad option: the `TypeError` message `executeCommand` rejected with, for the Worker to throw. */
  readonly typeError?: string;
}

export type WireError =
  | { readonly code: "NOT_FOUND" | "ALREADY_EXISTS" | "CONFLICT" | "ERASING"; readonly path: string }
  | { readonly code: "NOT_A_DIRECTORY"; readonly path: string; readonly ancestor: string }
  | { readonly code: "QUOTA_EXCEEDED"; readonly path: string; readonly usage: Usage }
  | { readonly code: "STORE_FAILURE"; readonly reason: string; readonly mayBeApplied: boolean };

/** The answer to one store method: its value, or the typed error it threw. */
export type MethodReply<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: WireError };

/** A store method the Worker calls on the object, and its arguments. */
export type MethodCall =
  | { readonly op: "read" | "stat"; readonly path: string }
  | {
      readonly op: "list" | "readOrList";
      readonly path: string;
      readonly depth: number;
      readonly limit?: number;
      readonly countFiles?: boolean;
    }
  | {
      readonly op: "write";
      readonly path: string;
      readonly data: Uint8Array;
      readonly ifVersion?: string;
      readonly quota?: { maxFiles?: number; maxTotalBytes?: number };
    }
  | { readonly op: "delete"; readonly path: string }
  | { readonly op: "rename"; readonly path: string; readonly to: string }
  | { readonly op: "usage" | "files" | "sweep" };

export type { RequestTime };

export const toWire = (error: unknown): WireError | null => {
  if (!isStoreError(error) && !isStoreError(error, "QUOTA_EXCEEDED")) return null;
  const e = error as {
    code: string;
    path: string;
    ancestor?: string;
    usage?: Usage;
    reason?: string;
    mayBeApplied?: boolean;
  };
  switch (e.code) {
    case "NOT_A_DIRECTORY":
      return { code: "NOT_A_DIRECTORY", path: e.path, ancestor: e.ancestor as string };
    case "QUOTA_EXCEEDED":
      return {
        code: "QUOTA_EXCEEDED",
        path: e.path,
        usage: { files: e.usage?.files ?? 0, bytes: e.usage?.bytes ?? 0 },
      };
    case "STORE_FAILURE":
      return { code: "STORE_FAILURE", reason: e.reason ?? "", mayBeApplied: e.mayBeApplied === true };
    default:
      return { code: e.code as "NOT_FOUND" | "ALREADY_EXISTS" | "CONFLICT" | "ERASING", path: e.path };
  }
};

export const fromWire = (error: WireError): Error => {
  switch (error.code) {
    case "NOT_FOUND":
      return new NotFoundError(error.path);
    case "ALREADY_EXISTS":
      return new AlreadyExistsError(error.path);
    case "CONFLICT":
      return new ConflictError(error.path);
    case "ERASING":
      return new ErasingError(error.path);
    case "NOT_A_DIRECTORY":
      return new NotADirectoryError(error.path, error.ancestor);
    case "QUOTA_EXCEEDED":
      return new QuotaExceededError(error.path, error.usage);
    case "STORE_FAILURE":
      return new StoreFailureError(error.reason, { mayBeApplied: error.mayBeApplied });
  }
};

/**
 * The address of the object named `name`: a root's name holds no `/` (the Worker checks its prefix), and
 * each tenant level adds `/` and the tenant id, which never holds one.
 */
export const addressOf = (name: string): ObjectAddress => {
  const cut = name.lastIndexOf("/");
  return cut < 0
    ? { self: name, parent: null, id: null }
    : { self: name, parent: name.slice(0, cut), id: name.slice(cut + 1) };
};
