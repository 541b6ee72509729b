import { readFileSync } from "node:fs";
import { createServer } from "node:net";

// Ports are drawn below the kernel's ephemeral range: a port the kernel hands out for outgoing
// connections could be taken by any client between our check and the server's bind, and the test
// suites open thousands of client connections while servers start.
const FIRST = 20_000;
const DEFAULT_EPHEMERAL_START = 32_768;
const handedOut = new Set<number>();

const ephemeralStart = (): number => {
  try {
    const [start] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/);
    const value = Number(start);
    return Number.isInteger(value) && value > FIRST + 1_000 ? value : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
};

const listenOnce = (port: number): Promise<number | undefined> =>
  new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      const bound = typeof address === "object" && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });

/**
 * A TCP port on 127.0.0.1 that was free a moment ago, below the ephemeral range and not handed out
 * before by this process.
 */
export const freePort = async (): Promise<number> => {
  const last = ephemeralStart();
  for (let attempt = 0; attempt < 200; attempt++) {
    const candidate = FIRST + Math.floor(Math.random() * (last - FIRST));
    if (handedOut.has(candidate)) continue;
    // Reserved before the check, so that concurrent calls never hand out the same port.
    handedOut.add(candidate);
    if ((await listenOnce(candidate)) === candidate) return candidate;
    handedOut.delete(candidate);
  }
  const port = await listenOnce(0);
  if (port === undefined) throw new Error("could not find a free loopback port");
  return port;
};
