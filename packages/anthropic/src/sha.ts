/** SHA-256 of text's UTF-8 bytes as lowercase hex: the API's `content_sha256`, computed locally. */
const encoder = new TextEncoder();

export const sha256Hex = async (text: string): Promise<string> => {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0");
  return hex;
};
