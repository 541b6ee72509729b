import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as testing from "../src/index.js";

// The public surface is what the README documents. (This package cannot use the testkit's surface check:
// the testkit depends on it.)
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const entry = readFileSync(new URL("../src/index.ts", import.meta.url), "utf8");

const VALUES = [
  "memoryScript",
  "receivedToolResults",
  "startScriptedMessagesApi",
  "text",
  "toolResult",
  "toolResults",
  "toolUse",
  "toolUseId",
];
const TYPES = [
  "Block",
  "ContentBlock",
  "Conversation",
  "Message",
  "ReceivedRequest",
  "Script",
  "ScriptedBlock",
  "ScriptedMessagesApi",
  "ScriptedMessagesApiOptions",
  "ScriptedModel",
  "ScriptedTurn",
  "TextBlock",
  "ToolResultBlock",
  "ToolUseBlock",
];

describe("public surface", () => {
  it("@mem/testing exports exactly these values and types", () => {
    expect(Object.keys(testing).sort()).toEqual(VALUES);
    const named = [...entry.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
      (m[1] ?? "")
        .split(",")
        .map((name) => name.trim().replace(/^type /, ""))
        .filter((name) => name !== ""),
    );
    expect([...new Set(named)].sort()).toEqual([...VALUES, ...TYPES].sort());
  });

  it("the README names every one as code", () => {
    for (const name of [...VALUES, ...TYPES]) expect(readme).toMatch(new RegExp(`\`[^\`\\n]*\\b${name}\\b`));
  });
});
