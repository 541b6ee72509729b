/**
 * What the store's write function answers (`r_status`, `r_detail`), turned into core's results and
 * errors (a rename's answer goes through core's `renameOutcome`); and the paths a view last found to be
 * directories.
 */
import {
  AlreadyExistsError,
  ConflictError,
  NotADirectoryError,
  QuotaExceededError,
  StoreFailureError,
  type Version,
} from "@mem/core";

type Row = Record<string, unknown> | undefined;

/** The written version, or the error the write function's status names. */
export const writeOutcome = (path: string, row: Row): { version: Version } => {
  switch (row?.["r_status"]) {
    case "ok":
      return { version: String(row["r_detail"]) };
    case "quota": {
      const [files, bytes] = String(row["r_detail"]).split(" ").map(Number);
      throw new QuotaExceededError(path, { files: files ?? 0, bytes: bytes ?? 0 });
    }
    case "exists":
      throw new AlreadyExistsError(path);
    case "notdir":
      throw new NotADirectoryError(path, String(row["r_detail"]));
    case "conflict":
      throw new ConflictError(path);
    default:
      throw new StoreFailureError("unexpected reply from the database");
  }
};

/**
 * Paths a view last found to be directories (at most 256, then forgotten at once), so that the next view
 * of one goes straight to the statement that lists, instead of reading a file first. A hint only: that
 * statement answers with a file too.
 */
export class KnownDirectories {
  readonly #paths = new Set<string>();

  has(path: string): boolean {
    return this.#paths.has(path);
  }

  note(path: string, directory: boolean): void {
    if (!directory) this.#paths.delete(path);
    else {
      if (this.#paths.size >= 256) this.#paths.clear();
      this.#paths.add(path);
    }
  }
}
