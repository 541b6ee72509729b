/**
 * The real ChatAnthropic against the scripted Messages API over HTTP, with the executor answering its
 * tool calls: what the server receives is what Claude would, for an fs store and a Redis store.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { executeCommand, InMemoryStore, type MemoryStore, toolResultContent } from "@mem/core";
import { FsStore } from "@mem/fs";
import { RedisStore } from "@mem/redis";
import { type Converse, describeMemoryToolChecks } from "@mem/testkit/integration-checks";
import { markToolErrors, memoryTool, memoryToolNode } from "../src/index.js";
import { chatModel } from "./helpers.js";

/** An agent loop: ChatAnthropic with the memory tool bound, the executor answering every call. */
const run =
  (streaming: boolean): Converse<MemoryStore> =>
  async (api, store, _script, options = {}) => {
    const model = chatModel(api, streaming).bindTools([memoryTool(store, options)]);
    const node = memoryToolNode(store, options);
    const messages: BaseMessage[] = [new HumanMessage("Tidy up my memory.")];
    for (let turn = 0; turn < 10; turn += 1) {
      const reply = await model.invoke(markToolErrors(messages));
      messages.push(reply);
      if (!reply.tool_calls?.length) return reply.text;
      messages.push(...((await node.invoke(messages)) as BaseMessage[]));
    }
    throw new Error("the conversation did not end");
  };

describeMemoryToolChecks<MemoryStore>("memoryTool and memoryToolNode", {
  Directory: FsStore,
  Redis: RedisStore,
  modes: { invoke: run(false), streaming: run(true) },
  fresh: () => new InMemoryStore(),
  execute: executeCommand,
  content: toolResultContent,
});
