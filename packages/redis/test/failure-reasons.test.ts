import { StoreFailureError } from "@mem/core";
import { describe, expect, it } from "vitest";
import { toStoreFailure } from "../src/failure.js";

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });
const named = (message: string, name: string) => Object.assign(new Error(message), { name });

describe("failure reasons", () => {
  it.each([
    [withCode("connect ECONNREFUSED 10.0.0.1:6379", "ECONNREFUSED"), "connection refused"],
    [withCode("read ECONNRESET", "ECONNRESET"), "connection reset"],
    [withCode("getaddrinfo ENOTFOUND redis.internal", "ENOTFOUND"), "host not found"],
    [new Error("Command timed out"), "timed out"],
    [new Error("Connection is closed."), "connection closed"],
    [
      named("Reached the max retries per request limit (which is 1).", "MaxRetriesPerRequestError"),
      "connection lost",
    ],
    [new Error("Stream isn't writeable and enableOfflineQueue options is false"), "not connected"],
    [
      named("WRONGPASS invalid username-password pair or user is disabled.", "ReplyError"),
      "authentication failed",
    ],
    [named("NOAUTH Authentication required.", "ReplyError"), "authentication required"],
    [named("OOM command not allowed when used memory > 'maxmemory'.", "ReplyError"), "server out of memory"],
    [named("CLUSTERDOWN The cluster is down", "ReplyError"), "cluster is down"],
    [named("READONLY You can't write against a read only replica.", "ReplyError"), "server is read-only"],
    [
      new Error("Too many Cluster redirections. Last error: Error: Connection is closed."),
      "cluster node unreachable",
    ],
    [
      named("ERR something about key {tenant}:f:/memories/secret.md", "ReplyError"),
      "redis rejected the command",
    ],
    [new Error("redis://user:hunter2@host failed"), "redis error"],
    ["not an error", "redis error"],
  ])("maps %s to a fixed phrase", (error, reason) => {
    const failure = toStoreFailure(error);
    expect(failure).toBeInstanceOf(StoreFailureError);
    expect(failure.reason).toBe(reason);
    expect(failure.message).toBe(reason);
  });

  it("passes a StoreFailureError through unchanged", () => {
    const original = new StoreFailureError("timed out");
    expect(toStoreFailure(original)).toBe(original);
  });
});
