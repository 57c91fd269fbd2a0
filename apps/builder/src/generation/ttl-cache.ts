import type { Clock } from "@app/core";

/**
 * A small in-process cache whose entries expire after `ttlMs` on the injected clock; the oldest
 * entry is dropped beyond `maxEntries` so arbitrary search queries cannot grow it without bound.
 *
 * @example const cache = new TtlCache<string>(clock, 60_000); cache.set("k", "v"); cache.get("k");
 */
export class TtlCache<T> {
  private readonly entries = new Map<string, { value: T; expiresAt: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly maxEntries = 200,
  ) {}

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.clock.now().getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.clock.now().getTime() + this.ttlMs });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
