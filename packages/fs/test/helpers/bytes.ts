// Apart from files.ts, which registers vitest hooks, so that child-process fixtures can import it too.
export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
