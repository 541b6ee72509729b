import { executeCommand, InMemoryStore } from "@mem/core";
import fc from "fast-check";
import { expect, it } from "vitest";
import { EncryptedStore } from "../src/index.js";
import { testKey } from "./helpers.js";

// A small name space, so random commands keep hitting files and directories that exist.
const name = fc.constantFrom("a", "b", ".h", "node_modules");
const path = fc
  .array(name, { minLength: 1, maxLength: 3 })
  .map((segments) => `/memories/${segments.join("/")}`);
const anyPath = fc.oneof({ weight: 1, arbitrary: fc.constant("/memories") }, { weight: 6, arbitrary: path });
const text = fc.constantFrom("", "one\n", "one\ntwo\n", "two\nthree\n", "é€\n");

const create = fc.record({ command: fc.constant("create"), path, file_text: text });
const command = fc.oneof(
  fc.record({ command: fc.constant("view"), path: anyPath }),
  create,
  fc.record({
    command: fc.constant("str_replace"),
    path,
    old_str: fc.constantFrom("one", "two", "three"),
    new_str: fc.constantFrom("", "1", "2\n"),
  }),
  fc.record({ command: fc.constant("insert"), path, insert_line: fc.nat(2), insert_text: text }),
  fc.record({ command: fc.constant("delete"), path }),
  fc.record({ command: fc.constant("rename"), old_path: path, new_path: path }),
);

it("gives byte-identical results to the plain store for any sequence of commands", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(create, { minLength: 4, maxLength: 10 }),
      fc.array(command, { minLength: 1, maxLength: 30 }),
      async (setup, commands) => {
        const plain = new InMemoryStore();
        const encrypted = new EncryptedStore(new InMemoryStore(), { key: testKey(1) });
        for (const input of [...setup, ...commands, { command: "view", path: "/memories" }]) {
          const expected = await executeCommand(plain, input);
          expect(await executeCommand(encrypted, input), JSON.stringify(input)).toEqual(expected);
        }
      },
    ),
    { numRuns: 80 },
  );
});
