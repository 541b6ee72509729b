/**
 * The outcome of a rename that a store's server-side code reports as a status word, for the adapters
 * whose scripts or functions answer that way (Redis, PostgreSQL).
 */
import { AlreadyExistsError, NotADirectoryError, NotFoundError, StoreFailureError } from "./errors.js";

/** What a server-side rename answered: its status word and, for `notdir`, the file in the way. */
export interface RenameReply {
  status: string | undefined;
  detail: string;
}

/**
 * Returns when `reply.status` is `ok`; otherwise throws the error it names: `notfound` (nothing at
 * `from`), `exists` (something at `to`), `notdir` (the file `detail` is among `to`'s ancestors), `inside`
 * (a `RangeError` naming `store`: core never asks for a move into itself), anything else a
 * `StoreFailureError` with `unexpected` as its reason.
 *
 * @example
 * ```ts
 * import { renameOutcome } from "@mem/core";
 * renameOutcome("MyStore", "/memories/a", "/memories/b", { status: "ok", detail: "" }, "unexpected reply");
 * ```
 */
export function renameOutcome(
  store: string,
  from: string,
  to: string,
  reply: RenameReply,
  unexpected: string,
): void {
  switch (reply.status) {
    case "ok":
      return;
    case "notfound":
      throw new NotFoundError(from);
    case "exists":
      throw new AlreadyExistsError(to);
    case "inside":
      throw new RangeError(`${store}.rename: cannot move ${from} into itself`);
    case "notdir":
      throw new NotADirectoryError(to, reply.detail);
    default:
      throw new StoreFailureError(unexpected);
  }
}
