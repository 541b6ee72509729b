/** Helpers the schemes share for reading URLs. */
import { StoreUrlError } from "./errors.js";
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
