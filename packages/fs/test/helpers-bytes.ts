export const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
