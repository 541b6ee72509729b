import { describe, expect, it } from "vitest";
import { oneAtATime } from "../src/index.js";

describe("oneAtATime", () => {
  it("runs each task after the ones given before it have settled, in the order given", async () => {
    const inOrder = oneAtATime();
    const log: string[] = [];
    const gates: (() => void)[] = [];
    const task = (name: string) => () =>
      new Promise<string>((resolve) => {
        log.push(`start ${name}`);
        gates.push(() => {
          log.push(`end ${name}`);
          resolve(name);
        });
      });
    const results = [inOrder(task("a")), inOrder(task("b")), inOrder(task("c"))];
    while (log.length < 6) {
      await new Promise((resolve) => setImmediate(resolve));
      gates.shift()?.();
    }
    expect(await Promise.all(results)).toEqual(["a", "b", "c"]);
    expect(log).toEqual(["start a", "end a", "start b", "end b", "start c", "end c"]);
  });

  it("a task that rejects rejects its own call only; the next task still runs", async () => {
    const inOrder = oneAtATime();
    const failed = inOrder(() => Promise.reject(new Error("boom")));
    const next = inOrder(async () => "next");
    await expect(failed).rejects.toThrow("boom");
    expect(await next).toBe("next");
  });

  it("separate queues do not wait on each other", async () => {
    const first = oneAtATime();
    const second = oneAtATime();
    first(() => new Promise<never>(() => {}));
    expect(await second(async () => "free")).toBe("free");
  });
});
