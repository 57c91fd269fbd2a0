import type { Language } from "./limits.ts";
import type { ResidentRunner } from "./resident.ts";

/**
 * The kinds of resident runner: one per interpreted language, and for JavaScript that fits an isolate
 * (no Node.js APIs, see `fitsIsolate`) a workspace's isolate runner, which runs each node in a new V8 isolate.
 */
export type RunnerKind = Language | "javascript-isolate";

/** The idle resident runner a session keeps per kind between its nodes. */
export type HeldRunners = Map<RunnerKind, ResidentRunner>;

/** How long a workspace's idle Python zygote or JavaScript isolate runner is kept for its next run. */
const PARKED_IDLE_MS = 60_000;

/**
 * The idle resident runners kept for a later node: held by an open session for its run's next node,
 * or parked for the workspace's next run.
 *
 * @example const parking = new RunnerParking({ concurrency: 4, perWorkspaceConcurrency: 2, contentionWindowMs: 5_000 });
 */
export class RunnerParking {
  readonly #pool: { concurrency: number; perWorkspaceConcurrency: number; contentionWindowMs: number };
  /**
   * Idle resident runners per kind and workspace (`${kind}:${workspaceId}`), newest last, for a later run
   * of the same workspace: Python zygotes never ran user code; isolate runners ran it only in isolates
   * they disposed of.
   */
  readonly #parked = new Map<string, { runner: ResidentRunner; timer: NodeJS.Timeout }[]>();
  /** Idle resident runners held by open sessions, across all sessions. */
  #heldBySessions = 0;
  /** The held runners of sessions already closed: a node that ends after its session does not refill them. */
  readonly #closedSessions = new WeakSet<HeldRunners>();
  #isClosed = false;

  constructor(pool: { concurrency: number; perWorkspaceConcurrency: number; contentionWindowMs: number }) {
    this.#pool = pool;
  }

  /** Idle runners held by open sessions. */
  get held(): number {
    return this.#heldBySessions;
  }

  /** Idle runners parked for their workspace's next run. */
  get parked(): number {
    return [...this.#parked.values()].reduce((sum, list) => sum + list.length, 0);
  }

  /** The runner a session holds for this kind, taken from it; undefined when it has none or it died. */
  takeHeld(held: HeldRunners | undefined, kind: RunnerKind): ResidentRunner | undefined {
    const mine = held?.get(kind);
    if (!held || !mine) return undefined;
    held.delete(kind);
    this.#heldBySessions--;
    // Held idle, it may have died since (killed, or out of CPU headroom): then the node starts afresh.
    if (mine.isUsable) return mine;
    mine.kill();
    return undefined;
  }

  /**
   * Where a resident runner goes after a node. An isolate runner (it ran code only in isolates it
   * disposed of) goes straight to its workspace's parking, where the run's next node and the
   * workspace's other runs find it: held by a session until the run ended, it made every run that
   * overlapped another of its workspace start a runner of its own (a fifth of the runs at 10 clients).
   * A Python zygote goes back to its session for the run's next node and is parked when the run ends
   * (parked after each node instead, it took 40–60 % more CPU per run through the API, measured).
   * A per-run JavaScript process (it ran user code in itself) goes back to its session and is killed
   * when the run ends; so is a runner that a limit stopped.
   */
  release(
    language: RunnerKind,
    runner: ResidentRunner,
    workspaceId: string,
    held: HeldRunners | undefined,
    isDefault = true,
  ): void {
    if (!runner.isUsable || !isDefault || this.#isClosed) {
      runner.kill();
      return;
    }
    if (language === "javascript-isolate") {
      this.#park(`${language}:${workspaceId}`, runner);
      return;
    }
    const isHeldOpen = held !== undefined && !this.#closedSessions.has(held);
    if (isHeldOpen && !held.has(language) && this.#heldBySessions < this.#pool.concurrency * 4) {
      held.set(language, runner);
      this.#heldBySessions++;
      // One that dies while held (killed, out of memory) is let go at once, not found dead by the next node.
      void runner.closed.then(() => {
        if (held.get(language) !== runner) return;
        held.delete(language);
        this.#heldBySessions--;
      });
      return;
    }
    if (language !== "javascript") this.#park(`${language}:${workspaceId}`, runner);
    else runner.kill();
  }

  /** A session ended: what it held is parked for its workspace or killed, and a node that ends later keeps nothing for it. */
  closeSession(held: HeldRunners, workspaceId: string): void {
    this.#closedSessions.add(held);
    for (const [language, runner] of held) {
      this.#heldBySessions--;
      this.release(language, runner, workspaceId, undefined);
    }
    held.clear();
  }

  #park(key: string, runner: ResidentRunner): void {
    const parked = this.#parked.get(key) ?? [];
    // Idle zygotes cost memory, not CPU: a few per slot, across all workspaces; per workspace as many
    // as it may run at once (the whole pool when it borrows), so its concurrent runs each find one.
    const perWorkspace =
      this.#pool.contentionWindowMs > 0 ? this.#pool.concurrency : this.#pool.perWorkspaceConcurrency;
    if (parked.length >= perWorkspace || this.parked >= this.#pool.concurrency * 4) {
      runner.kill();
      return;
    }
    const entry = {
      runner,
      timer: setTimeout(() => {
        const list = this.#parked.get(key);
        const index = list?.indexOf(entry) ?? -1;
        if (list && index >= 0) list.splice(index, 1);
        if (list?.length === 0) this.#parked.delete(key);
        runner.kill();
      }, PARKED_IDLE_MS),
    };
    entry.timer.unref();
    parked.push(entry);
    this.#parked.set(key, parked);
  }

  /** The workspace's newest live parked runner of this kind, taken out of parking. */
  unpark(kind: RunnerKind, workspaceId: string): ResidentRunner | undefined {
    const key = `${kind}:${workspaceId}`;
    const parked = this.#parked.get(key);
    while (parked && parked.length > 0) {
      const entry = parked.pop();
      if (!entry) break;
      clearTimeout(entry.timer);
      if (entry.runner.isUsable) {
        if (parked.length === 0) this.#parked.delete(key);
        return entry.runner;
      }
      entry.runner.kill();
    }
    this.#parked.delete(key);
    return undefined;
  }

  /** Kills every parked runner; a runner released from now on is killed rather than kept. */
  close(): void {
    this.#isClosed = true;
    for (const parked of this.#parked.values()) {
      for (const { runner, timer } of parked) {
        clearTimeout(timer);
        runner.kill();
      }
    }
    this.#parked.clear();
  }
}
