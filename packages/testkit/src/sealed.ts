import { createHash } from "node:crypto";

/** Content whose last line is a hash of everything before it, so a torn or mixed file is detectable. */
export const sealed = (label: string, size: number): Uint8Array => {
  const body = `${label}\n${"x".repeat(size)}\n`;
  const seal = createHash("sha256").update(body).digest("hex");
  return new TextEncoder().encode(`${body}${seal}\n`);
};

/** Whether `data` is one complete output of `sealed`. */
export const isSealed = (data: Uint8Array): boolean => {
  const text = new TextDecoder().decode(data);
  const cut = text.lastIndexOf("\n", text.length - 2);
  if (cut < 0 || !text.endsWith("\n")) return false;
  const body = text.slice(0, cut + 1);
  return createHash("sha256").update(body).digest("hex") === text.slice(cut + 1, -1);
};
