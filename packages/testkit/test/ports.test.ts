import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { freePort } from "../src/index.js";

describe("freePort", () => {
  it("hands out distinct ports below the kernel's ephemeral range", async () => {
    const [ephemeralStart] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8")
      .trim()
      .split(/\s+/);
    const ports = await Promise.all(Array.from({ length: 50 }, () => freePort()));
    expect(new Set(ports).size).toBe(50);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(Number(ephemeralStart));
    }
  });
});
