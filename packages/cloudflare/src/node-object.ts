/** `MemoryObject` outside workerd: a class of the same name that refuses to be constructed. */
export class MemoryObject {
  constructor() {
    throw new TypeError(
      "MemoryObject is a Durable Object: it runs inside a Worker (workerd), exported for wrangler.toml",
    );
  }
}
