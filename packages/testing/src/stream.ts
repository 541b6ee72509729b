/** A reply sent as the server-sent event stream of a streaming request. */
import type { ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { TextBlock, ToolUseBlock } from "./types.js";

export type Reply = {
  content: (TextBlock | ToolUseBlock | { type: string })[];
  stop_reason: string;
  usage: { output_tokens: number };
} & Record<string, unknown>;

/** Splits `text` after each separator match, three pieces per chunk. */
const chunks = (text: string, separator: RegExp): string[] => {
  const pieces = text.split(separator);
  const out: string[] = [];
  for (let i = 0; i < pieces.length; i += 3) out.push(pieces.slice(i, i + 3).join(""));
  return out;
};

/** Sends `reply` as the events of a streaming request: text in word chunks, tool input as JSON parts. */
export const streamReply = async (res: ServerResponse, reply: Reply, delayMs: number): Promise<void> => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const send = async (event: Record<string, unknown> & { type: string }, pause = false) => {
    res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    if (pause && delayMs > 0) await sleep(delayMs);
  };
  await send({
    type: "message_start",
    message: { ...reply, content: [], stop_reason: null, usage: { ...reply.usage, output_tokens: 1 } },
  });
  for (const [index, block] of reply.content.entries()) {
    if (block.type === "text") {
      await send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
      for (const text of chunks((block as TextBlock).text, /(?<=\s)/)) {
        await send({ type: "content_block_delta", index, delta: { type: "text_delta", text } }, true);
      }
    } else {
      const tool = block as ToolUseBlock;
      await send({ type: "content_block_start", index, content_block: { ...tool, input: {} } });
      for (const partial_json of chunks(JSON.stringify(tool.input), /(?<=,)/)) {
        await send(
          { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json } },
          true,
        );
      }
    }
    await send({ type: "content_block_stop", index });
  }
  await send({
    type: "message_delta",
    delta: { stop_reason: reply.stop_reason, stop_sequence: null },
    usage: reply.usage,
  });
  await send({ type: "message_stop" });
  res.end();
};
