/** Injected faults: the rules `failNext` adds, and which rule, if any, a request meets. */
import { seededRandom } from "../random.js";
import { matches } from "./requests.js";
import type { ParsedRequest, S3FailureRule } from "./types.js";

/** The failure rules in force, in the order they were added. */
export class FaultRules {
  readonly #rules: { rule: S3FailureRule; seen: number; failed: number; random: () => number }[] = [];

  /** Adds `rule`; returns a function that removes it. */
  add(rule: S3FailureRule): () => void {
    const entry = { rule, seen: 0, failed: 0, random: seededRandom(rule.seed ?? 1) };
    this.#rules.push(entry);
    return () => {
      const at = this.#rules.indexOf(entry);
      if (at >= 0) this.#rules.splice(at, 1);
    };
  }

  clear(): void {
    this.#rules.length = 0;
  }

  /** The first rule that faults this request, counting it as seen by every rule it matches before. */
  take(parsed: ParsedRequest, method: string): S3FailureRule | undefined {
    for (const entry of this.#rules) {
      if (!matches(entry.rule, parsed, method)) continue;
      entry.seen++;
      if (entry.seen <= (entry.rule.skip ?? 0)) continue;
      if (entry.failed >= (entry.rule.count ?? 1)) continue;
      if (entry.rule.rate !== undefined && entry.random() >= entry.rule.rate) continue;
      entry.failed++;
      return entry.rule;
    }
    return undefined;
  }
}
