import { readdirSync, readFileSync } from "node:fs";

/**
 * Host pids whose real uid lies in [first, last]: how tests see whether anything of a sandbox survived.
 *
 * @example processesOwnedBy(1_600_000_000, 1_600_001_024) // [] once every run is gone
 */
export function processesOwnedBy(first: number, last: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, "utf8");
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      const isZombie = /^State:\s+Z/m.test(status);
      if (!isZombie && uid >= first && uid <= last) found.push(Number(name));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

function commandName(pid: number | string): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return undefined;
  }
}

/**
 * Like processesOwnedBy, without the sandboxes themselves (bwrap), the idle Python zygotes a
 * workspace keeps (a zygote is bwrap's direct child; whatever user code forked is the zygote's child
 * or descendant) and the child each zygote forks ahead for its next node (named `zygote-spare` until
 * its request comes): what a test sees when user code left a process behind.
 *
 * @example userProcessesOwnedBy(1_600_000_000, 1_600_001_024) // [] once every run is gone
 */
export function userProcessesOwnedBy(first: number, last: number): number[] {
  return processesOwnedBy(first, last).filter((pid) => {
    const name = commandName(pid);
    if (name === "bwrap" || name === "zygote-spare") return false;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const parent = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1];
      return parent === undefined || commandName(parent) !== "bwrap";
    } catch {
      return false;
    }
  });
}

/**
 * What each pid is running, to say which processes survived when a test fails.
 *
 * @example describeProcesses(processesOwnedBy(a, b)) // ["1234 (uid 1600000001): python3 -I -B /sandbox/runner.py"]
 */
export function describeProcesses(pids: readonly number[]): string[] {
  return pids.map((pid) => {
    try {
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
      const parent = /^PPid:\s+(\d+)/m.exec(status)?.[1];
      return `${pid} (uid ${uid}, parent ${parent}): ${command}`;
    } catch {
      return `${pid}: gone`;
    }
  });
}

/**
 * Polls `check` until it is true or `timeoutMs` passes; returns the last answer. For states that
 * converge (a process tree being reaped), never for asserting on durations.
 *
 * @example expect(await eventually(() => processesOwnedBy(a, b).length === 0)).toBe(true);
 */
export async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}

/**
 * Kills leftover processes of a uid range, so one failing test does not leak into the next.
 *
 * @example afterAll(() => killOwnedBy(UID_BASE, UID_BASE + 1024));
 */
export function killOwnedBy(first: number, last: number): void {
  for (const pid of processesOwnedBy(first, last)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
