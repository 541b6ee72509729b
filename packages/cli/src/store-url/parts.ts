/** Helpers the backends share for reading URLs and loading adapters. */
import { StoreSetupError, StoreUrlError } from "./errors.js";
import { maskUrl } from "./mask.js";

export const parseUrl = (raw: string, usage: string): URL => {
  try {
    return new URL(raw);
  } catch {
    throw new StoreUrlError(`Store URL "${maskUrl(raw)}" is malformed. ${usage}`);
  }
};

export const decodePart = (part: string, raw: string): string => {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new StoreUrlError(`Store URL "${maskUrl(raw)}" has a malformed percent-encoding.`);
  }
};

/** Imports an adapter only when a URL needs it, so one that is missing never gets in another's way. */
export const load = async <T>(name: string, importer: () => Promise<T>): Promise<T> => {
  try {
    return await importer();
  } catch (error) {
    throw new StoreSetupError(
      `Could not load ${name}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
};
