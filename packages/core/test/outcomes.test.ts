import { describe, expect, it } from "vitest";
import {
  AlreadyExistsError,
  NotADirectoryError,
  NotFoundError,
  renameOutcome,
  StoreFailureError,
} from "../src/index.js";

const outcome =
  (status: string | undefined, detail = "") =>
  () =>
    renameOutcome("SomeStore", "/memories/a", "/memories/b/c", { status, detail }, "unexpected reply");

describe("renameOutcome", () => {
  it("returns for ok and throws the error each other status names", () => {
    expect(outcome("ok")()).toBeUndefined();
    expect(outcome("notfound")).toThrow(NotFoundError);
    expect(outcome("notfound")).toThrow(new NotFoundError("/memories/a").message);
    expect(outcome("exists")).toThrow(new AlreadyExistsError("/memories/b/c").message);
    expect(outcome("notdir", "/memories/b")).toThrow(
      new NotADirectoryError("/memories/b/c", "/memories/b").message,
    );
    expect(outcome("inside")).toThrow(
      new RangeError("SomeStore.rename: cannot move /memories/a into itself"),
    );
    for (const status of [undefined, "", "OK", "quota"]) {
      expect(outcome(status)).toThrow(StoreFailureError);
      expect(outcome(status)).toThrow("unexpected reply");
    }
  });
});
