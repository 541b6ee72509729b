/**
 * Redis clients that count what they send, plus the server's own command counts. "round trips" are
 * commands written by our clients (a pipeline of n commands counts n); "server commands" come from
 * INFO commandstats and include the commands Lua scripts run inside the server.
 */
import { type Command, Redis, type RedisOptions } from "ioredis";

export class RedisCounters {
  #roundTrips = 0;
  readonly #clients: Redis[] = [];
  #admin: Redis | undefined;

  readonly #url: string;

  constructor(url: string) {
    this.#url = url;
  }

  /** A new client whose commands are counted (its connection's INFO ready check is not). */
  client(options: RedisOptions = {}): Redis {
    const client = new Redis(this.#url, options);
    client.on("error", () => {});
    const send = client.sendCommand.bind(client);
    client.sendCommand = ((command: Command, ...rest: unknown[]) => {
      if (command.name !== "info") this.#roundTrips++;
      return (send as (...args: unknown[]) => unknown)(command, ...rest);
    }) as Redis["sendCommand"];
    this.#clients.push(client);
    return client;
  }

  get #adminClient(): Redis {
    this.#admin ??= new Redis(this.#url, { maxRetriesPerRequest: 1 });
    return this.#admin;
  }

  async totals(): Promise<Record<string, number>> {
    const info = await this.#adminClient.info("commandstats");
    let server = 0;
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (match[1] !== "info") server += Number(match[2]);
    }
    return { "round trips": this.#roundTrips, "server commands": server };
  }

  async flush(): Promise<void> {
    await this.#adminClient.flushall();
  }

  async close(): Promise<void> {
    await Promise.allSettled(
      [...this.#clients, ...(this.#admin ? [this.#admin] : [])].map((client) => client.quit()),
    );
    for (const client of this.#clients) client.disconnect();
    this.#admin?.disconnect();
  }
}
