/** A readers–writer lock: many readers together, or one writer alone. Writers are not starved. */
export class ReadWriteLock {
  #readers = 0;
  #writer = false;
  readonly #queue: { write: boolean; grant: () => void }[] = [];

  acquire(write: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      this.#queue.push({ write, grant: () => resolve(() => this.#release(write)) });
      this.#pump();
    });
  }

  #release(write: boolean): void {
    if (write) this.#writer = false;
    else this.#readers--;
    this.#pump();
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      const next = this.#queue[0]!;
      if (this.#writer || (next.write && this.#readers > 0)) return;
      this.#queue.shift();
      if (next.write) this.#writer = true;
      else this.#readers++;
      next.grant();
      if (next.write) return;
    }
  }
}
