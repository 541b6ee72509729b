import { describe, expect, it } from "vitest";
import { memoryTool } from "../src/anthropic/index.js";
import {
  executeCommand,
  guardText,
  InMemoryStore,
  type MemoryStore,
  resolveGuard,
  type SensitiveOptions,
} from "../src/index.js";
import {
  CONTEXT_LOOK_ALIKES,
  filler,
  LOOK_ALIKES,
  SECRET_PATHS,
  SECRETS_IN_CONTEXT,
  TRUE_POSITIVES,
} from "./helpers/sensitive-corpus.js";

const ALL_ON: SensitiveOptions = { detectors: { paymentCard: true, email: true, phone: true } };
const refused = (path: string, line: number, label: string) =>
  `Error: Refused to write ${path}: line ${line} looks like ${label}. Do not store secrets or personal data in memory.`;

const read = async (store: MemoryStore, path: string) => {
  const file = await store.read(path);
  return file ? Buffer.from(file.data).toString("utf8") : null;
};

describe("sensitive-data guard: true positives", () => {
  for (const { name, secret, label, detector } of TRUE_POSITIVES) {
    const byDefault = ["privateKey", "awsAccessKey", "apiKey", "jwt"].includes(detector);

    it(`refuses ${name} (${byDefault ? "on by default" : "opt-in"}), naming the line, never the value`, async () => {
      const store = new InMemoryStore();
      const path = "/memories/notes.md";
      const text = `# Notes\n\nsetting: ${secret}\ntrailing line\n`;
      const options = byDefault ? {} : { sensitive: ALL_ON };
      const result = await executeCommand(store, { command: "create", path, file_text: text }, options);
      expect(result).toEqual({ content: refused(path, 3, label), isError: true });
      expect(await store.stat(path)).toBeNull();
      for (const line of secret.split("\n")) expect(result.content).not.toContain(line.slice(5, 17));
      if (!byDefault) {
        const plain = await executeCommand(store, { command: "create", path, file_text: text });
        expect(plain.isError).toBe(false);
      }
    });

    it(`redacts ${name}`, async () => {
      const store = new InMemoryStore();
      const path = "/memories/r.md";
      const options: SensitiveOptions = { ...ALL_ON, mode: "redact" };
      const text = `before ${secret} after\n`;
      const result = await executeCommand(
        store,
        { command: "create", path, file_text: text },
        { sensitive: options },
      );
      expect(result).toEqual({
        content: `File created successfully at: ${path}\n(Note: 1 sensitive value(s) were replaced by [REDACTED] before saving.)`,
        isError: false,
      });
      expect(await read(store, path)).toBe("before [REDACTED] after\n");
    });

    it(`can turn the ${detector} detector off`, async () => {
      const verdict = guardText(resolveGuard({ detectors: { [detector]: false } })!, "/memories/a", secret);
      expect(verdict.ok).toBe(true);
    });
  }
});

describe("sensitive-data guard: look-alikes pass", () => {
  for (const { name, text } of LOOK_ALIKES) {
    it(`lets ${name} through with every detector on`, async () => {
      const store = new InMemoryStore();
      const result = await executeCommand(
        store,
        { command: "create", path: "/memories/a.md", file_text: text },
        { sensitive: ALL_ON },
      );
      expect(result).toEqual({ content: "File created successfully at: /memories/a.md", isError: false });
      expect(await read(store, "/memories/a.md")).toBe(text);
    });
  }
});

describe("sensitive-data guard: secrets after /, _, @ and :", () => {
  for (const { name, text, label } of SECRETS_IN_CONTEXT) {
    it(`refuses ${name}`, async () => {
      const store = new InMemoryStore();
      const path = "/memories/notes.md";
      const result = await executeCommand(store, { command: "create", path, file_text: text });
      expect(result).toEqual({ content: refused(path, 1, label), isError: true });
      expect(await store.stat(path)).toBeNull();
    });
  }
  for (const { name, text } of CONTEXT_LOOK_ALIKES) {
    it(`lets ${name} through with every detector on`, async () => {
      const store = new InMemoryStore();
      const path = "/memories/a.md";
      const result = await executeCommand(
        store,
        { command: "create", path, file_text: text },
        { sensitive: ALL_ON },
      );
      expect(result).toEqual({ content: `File created successfully at: ${path}`, isError: false });
    });
  }
});

describe("sensitive-data guard: paths", () => {
  const pathRefused = (shown: string, label: string) =>
    `Error: Refused to write ${shown}: the path looks like ${label}. Do not store secrets or personal data in memory.`;
  const secretOf = (path: string, shown: string) => {
    const at = shown.indexOf("[REDACTED]");
    return path.slice(at, path.length - (shown.length - at - "[REDACTED]".length));
  };

  for (const { path, shown, label } of SECRET_PATHS) {
    it(`refuses create at ${shown}, in both modes, without echoing the secret`, async () => {
      for (const options of [{}, { sensitive: { mode: "redact" } as const }]) {
        const store = new InMemoryStore();
        const result = await executeCommand(
          store,
          { command: "create", path, file_text: "hello\n" },
          options,
        );
        expect(result).toEqual({ content: pathRefused(shown, label), isError: true });
        expect(result.content).not.toContain(secretOf(path, shown));
        expect(await store.files()).toEqual([]);
      }
    });

    it(`refuses a rename to ${shown}, without echoing the secret`, async () => {
      const store = new InMemoryStore();
      await executeCommand(store, { command: "create", path: "/memories/a.md", file_text: "a\n" });
      const result = await executeCommand(store, {
        command: "rename",
        old_path: "/memories/a.md",
        new_path: path,
      });
      expect(result).toEqual({ content: pathRefused(shown, label), isError: true });
      expect(result.content).not.toContain(secretOf(path, shown));
      expect((await store.files()).map((f) => f.path)).toEqual(["/memories/a.md"]);
    });
  }

  it("refuses a secret path before looking at storage: an existing destination is not reported", async () => {
    const { path, shown, label } = SECRET_PATHS[0]!;
    const store = new InMemoryStore();
    await store.write(path, new TextEncoder().encode("old\n"), { ifAbsent: true });
    const created = await executeCommand(store, { command: "create", path, file_text: "x\n" });
    expect(created).toEqual({ content: pathRefused(shown, label), isError: true });
    const renamed = await executeCommand(store, {
      command: "rename",
      old_path: "/memories/x.md",
      new_path: path,
    });
    expect(renamed).toEqual({ content: pathRefused(shown, label), isError: true });
  });

  it("lets a file be renamed away from a path that holds a secret, and leaves paths alone when off", async () => {
    const { path } = SECRET_PATHS[0]!;
    const store = new InMemoryStore();
    const off = await executeCommand(
      store,
      { command: "create", path, file_text: "x\n" },
      { sensitive: false },
    );
    expect(off.isError).toBe(false);
    const away = await executeCommand(store, {
      command: "rename",
      old_path: path,
      new_path: "/memories/b.md",
    });
    expect(away).toEqual({ content: `Successfully renamed ${path} to /memories/b.md`, isError: false });
  });

  it("lets ordinary paths through with every detector on", async () => {
    const store = new InMemoryStore();
    for (const path of ["/memories/AKIA-notes.md", "/memories/ghp_short.md", "/memories/eyJ/x.md"]) {
      const result = await executeCommand(
        store,
        { command: "create", path, file_text: "x\n" },
        { sensitive: ALL_ON },
      );
      expect(result).toEqual({ content: `File created successfully at: ${path}`, isError: false });
    }
  });
});

describe("sensitive-data guard: the text the file would hold", () => {
  const key = `AK${"IA"}${filler(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")}`;

  it("catches a key completed by str_replace, and leaves the file as it was", async () => {
    const store = new InMemoryStore();
    const path = "/memories/env.md";
    const start = `a\nb\naws_key = ${key.slice(0, 10)}\n`;
    await executeCommand(store, { command: "create", path, file_text: start });
    const result = await executeCommand(store, {
      command: "str_replace",
      path,
      old_str: `${key.slice(0, 10)}\n`,
      new_str: `${key.slice(10)}\n`.padStart(key.length - 9, "").replace(/^/, key.slice(0, 10)),
    });
    expect(result).toEqual({ content: refused(path, 3, "an AWS access key"), isError: true });
    expect(await read(store, path)).toBe(start);
    expect(result.content).not.toContain(key.slice(4));
  });

  it("catches a key that an edit joins from pieces on separate lines", async () => {
    const store = new InMemoryStore();
    const path = "/memories/split.md";
    const start = `x\n${key.slice(0, 8)}\n${key.slice(8)}\n`;
    expect((await executeCommand(store, { command: "create", path, file_text: start })).isError).toBe(false);
    const result = await executeCommand(store, {
      command: "str_replace",
      path,
      old_str: `${key.slice(0, 8)}\n`,
      new_str: key.slice(0, 8),
    });
    expect(result).toEqual({ content: refused(path, 2, "an AWS access key"), isError: true });
    expect(await read(store, path)).toBe(start);
  });

  it("reports the line in the would-be file for a multi-line insert", async () => {
    const store = new InMemoryStore();
    const path = "/memories/i.md";
    await executeCommand(store, { command: "create", path, file_text: "1\n2\n3\n" });
    const result = await executeCommand(store, {
      command: "insert",
      path,
      insert_line: 2,
      insert_text: `a\nb\nkey ${key}\n`,
    });
    expect(result).toEqual({ content: refused(path, 5, "an AWS access key"), isError: true });
    expect(await read(store, path)).toBe("1\n2\n3\n");
  });

  it("names the earliest match when several detectors match", () => {
    const jwt = TRUE_POSITIVES.find((t) => t.detector === "jwt")!.secret;
    const verdict = guardText(resolveGuard(undefined)!, "/memories/a", `x\n${jwt}\n${key}\n`);
    expect(verdict).toEqual({ ok: false, error: refused("/memories/a", 2, "a JSON Web Token") });
  });

  it("refuses a private key header even without its body", () => {
    const verdict = guardText(resolveGuard(undefined)!, "/memories/a", `-----BEGIN ${"PRIVATE"} KEY-----\n`);
    expect(verdict).toEqual({ ok: false, error: refused("/memories/a", 1, "a private key") });
  });

  it("redacts in str_replace and shows the redacted snippet with the right line numbers", async () => {
    const store = new InMemoryStore();
    const path = "/memories/s.md";
    const pem = TRUE_POSITIVES.find((t) => t.name === "RSA private key")!.secret;
    await executeCommand(store, { command: "create", path, file_text: "l1\nl2\nKEY\nl4\nl5\nl6\nl7\nl8\n" });
    const sensitive: SensitiveOptions = { mode: "redact" };
    const result = await executeCommand(
      store,
      { command: "str_replace", path, old_str: "KEY", new_str: `${pem}\nid ${key}` },
      { sensitive },
    );
    expect(await read(store, path)).toBe("l1\nl2\n[REDACTED]\nid [REDACTED]\nl4\nl5\nl6\nl7\nl8\n");
    expect(result).toEqual({
      content: [
        "The memory file has been edited. Here is the snippet showing the change (with line numbers):",
        "     1\tl1",
        "     2\tl2",
        "     3\t[REDACTED]",
        "     4\tid [REDACTED]",
        "     5\tl4",
        "     6\tl5",
        "     7\tl6",
        "     8\tl7",
        "\n(Note: 2 sensitive value(s) were replaced by [REDACTED] before saving.)",
      ]
        .join("\n")
        .replace("\n\n(Note", "\n(Note"),
      isError: false,
    });
  });

  it("redacts insert with the usual reply and the note", async () => {
    const store = new InMemoryStore();
    const path = "/memories/n.md";
    await executeCommand(store, { command: "create", path, file_text: "a\n" });
    const result = await executeCommand(
      store,
      { command: "insert", path, insert_line: 1, insert_text: `k=${key}\n` },
      { sensitive: { mode: "redact" } },
    );
    expect(result).toEqual({
      content: `The file ${path} has been edited.\n(Note: 1 sensitive value(s) were replaced by [REDACTED] before saving.)`,
      isError: false,
    });
    expect(await read(store, path)).toBe("a\nk=[REDACTED]\n");
  });

  it("checks maxFileBytes on the redacted text too", async () => {
    const store = new InMemoryStore();
    const email = `a${"@"}b.io`;
    const result = await executeCommand(
      store,
      { command: "create", path: "/memories/e", file_text: email },
      { maxFileBytes: 8, sensitive: { mode: "redact", detectors: { email: true } } },
    );
    expect(result).toEqual({
      content: "Error: File /memories/e would be 10 bytes, which exceeds the limit of 8 bytes",
      isError: true,
    });
    expect(await store.stat("/memories/e")).toBeNull();
  });

  it("reports maxFileBytes before the guard", async () => {
    const result = await executeCommand(
      new InMemoryStore(),
      { command: "create", path: "/memories/big", file_text: `${key}\n${"x".repeat(100)}` },
      { maxFileBytes: 50 },
    );
    expect(result.content).toBe(
      "Error: File /memories/big would be 121 bytes, which exceeds the limit of 50 bytes",
    );
  });

  it("is off with sensitive: false", async () => {
    const store = new InMemoryStore();
    const result = await executeCommand(
      store,
      { command: "create", path: "/memories/k", file_text: key },
      { sensitive: false },
    );
    expect(result.isError).toBe(false);
  });
});

describe("sensitive-data guard: the application's own detectors", () => {
  it("runs a RegExp detector, with or without the g flag", async () => {
    for (const test of [/\bSEC-[0-9]{6}\b/, /\bSEC-[0-9]{6}\b/g]) {
      const sensitive: SensitiveOptions = { custom: [{ label: "an internal ticket id", test }] };
      const store = new InMemoryStore();
      const text = "a\nb\nsee SEC-123456 and SEC-654321\n";
      const refusedResult = await executeCommand(
        store,
        { command: "create", path: "/memories/t", file_text: text },
        { sensitive },
      );
      expect(refusedResult.content).toBe(refused("/memories/t", 3, "an internal ticket id"));
      const redacted = await executeCommand(
        store,
        { command: "create", path: "/memories/t", file_text: text },
        { sensitive: { ...sensitive, mode: "redact" } },
      );
      expect(redacted.content).toContain("(Note: 2 sensitive value(s)");
      expect(await read(store, "/memories/t")).toBe("a\nb\nsee [REDACTED] and [REDACTED]\n");
    }
  });

  it("runs a function detector", () => {
    const guard = resolveGuard({
      custom: [
        {
          label: "a codeword",
          test: (text) =>
            text.includes("swordfish")
              ? [{ start: text.indexOf("swordfish"), end: text.indexOf("swordfish") + 9 }]
              : [],
        },
      ],
    })!;
    expect(guardText(guard, "/memories/a", "x\ny swordfish")).toEqual({
      ok: false,
      error: refused("/memories/a", 2, "a codeword"),
    });
  });

  it("refuses bad options with a TypeError naming them", () => {
    const bad: unknown[] = [
      { mode: "mask" },
      { detectors: { creditCard: true } },
      { detectors: { email: "yes" } },
      { custom: [{ label: "", test: /x/ }] },
      { custom: [{ label: "x", test: "x" }] },
      { custom: {} },
      "on",
    ];
    for (const options of bad) {
      expect(() => resolveGuard(options as SensitiveOptions)).toThrow(TypeError);
      expect(() => memoryTool(new InMemoryStore(), { sensitive: options as SensitiveOptions })).toThrow(
        /sensitive/,
      );
    }
    expect(() => resolveGuard({ detectors: { creditCard: true } } as SensitiveOptions)).toThrow(
      "sensitive.detectors.creditCard is not a detector (allowed: privateKey, awsAccessKey, apiKey, jwt, paymentCard, email, phone)",
    );
  });

  it("gives executeCommand's generic error result for bad options, never a throw", async () => {
    const result = await executeCommand(
      new InMemoryStore(),
      { command: "create", path: "/memories/a", file_text: "x" },
      { sensitive: { mode: "mask" } as unknown as SensitiveOptions },
    );
    expect(result).toEqual({ content: "Error: The memory tool failed unexpectedly", isError: true });
  });
});

describe("sensitive-data guard: linear time on adversarial input", () => {
  // Each input is as large as a file may be by default (1 MiB). A detector that backtracks
  // catastrophically needs on the order of 10^11 steps here and would not finish within the test timeout;
  // the linear ones take milliseconds. The assertions check what was found, not how long it took.
  const size = 1024 * 1024;
  const fill = (unit: string) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  const adversarial: [string, string][] = [
    ["AWS prefixes", fill("AKIA")],
    ["AWS prefix then lower case", fill("AKIAABCDEFGHIJKLMNOp")],
    ["JWT prefixes", fill("eyJ")],
    ["JWT without a signature", `${fill("eyJabcdefghij.")}`],
    ["unterminated API keys", fill("sk-ant-abc12-")],
    ["OpenAI legacy without the marker", `sk-${fill("a")}`],
    ["OpenAI marker repeated", `sk-${fill("aT3BlbkFJ")}`],
    ["GitHub prefixes", fill("ghp_")],
    ["JWT prefixes after underscores", fill("_eyJ")],
    ["JWT headers after underscores", fill("_eyJabcdefghij.eyJabcdefghij_")],
    ["AWS prefixes after slashes", fill("/AKIA")],
    ["GitHub prefixes after underscores", fill("_ghp_")],
    ["Anthropic prefixes after underscores", fill("_sk-ant-ab12-")],
    ["Google prefixes after underscores", fill("_AIza")],
    ["private key headers without an end", fill(`-----BEGIN ${"PRIVATE"} KEY-----\n`)],
    ["private key header padding", `-----BEGIN${fill(" ")}`],
    ["Slack-like", fill("xoxb-123456-")],
    ["digits and spaces", fill("4 ")],
    ["long digit run", fill("4")],
    ["e-mail local parts", fill("a.")],
    ["e-mail at-signs", fill("a@")],
    ["e-mail domains without a TLD", `a@${fill("b.1")}`],
    ["phone-like", fill("+1 (")],
    ["dashes", fill("-")],
  ];
  const guard = resolveGuard({ ...ALL_ON, mode: "redact" })!;
  for (const [name, text] of adversarial) {
    it(`scans 1 MiB of ${name}`, () => {
      const verdict = guardText(guard, "/memories/a", text);
      expect(verdict.ok).toBe(true);
      if (verdict.ok) expect(verdict.text.length).toBeLessThanOrEqual(text.length + 10 * 1024 * 1024);
    });
  }
});
