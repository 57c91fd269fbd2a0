/**
 * Hands out one unprivileged uid per live sandboxed process, so concurrent runs never share a uid
 * (root inside bwrap keeps every capability and ignores RLIMIT_NPROC, so the code must not run as root).
 *
 * @example const uids = new UidPool(1_500_000_001, 256); const uid = uids.acquire(); ... uids.release(uid);
 */
export class UidPool {
  readonly #free: number[] = [];
  readonly #first: number;
  readonly #size: number;

  constructor(first: number, size: number) {
    if (!Number.isInteger(first) || first < 1000 || first + size > 0xfffffffe) {
      throw new RangeError(`uid range ${first}+${size} must be above 999 and below 2^32-1`);
    }
    this.#first = first;
    this.#size = size;
    for (let uid = first + size - 1; uid >= first; uid--) this.#free.push(uid);
  }

  /** The lowest free uid; throws when every uid is in use (more live processes than the pool allows). */
  acquire(): number {
    const uid = this.#free.pop();
    if (uid === undefined) throw new Error(`all ${this.#size} sandbox uids are in use`);
    return uid;
  }

  release(uid: number): void {
    if (uid < this.#first || uid >= this.#first + this.#size || this.#free.includes(uid)) return;
    this.#free.push(uid);
    this.#free.sort((a, b) => b - a);
  }

  get inUse(): number {
    return this.#size - this.#free.length;
  }

  /** Whether `uid` belongs to this pool's range, e.g. to find leftover processes. */
  owns(uid: number): boolean {
    return uid >= this.#first && uid < this.#first + this.#size;
  }
}
