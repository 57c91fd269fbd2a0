import { readdirSync, readFileSync } from "node:fs";

interface ProcessInfo {
  uid: number;
  parent: number;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    if (/^State:\s+Z/m.test(status)) return undefined;
    const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
    const parent = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
    return Number.isFinite(uid) && Number.isFinite(parent) ? { uid, parent } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Kills sandboxes of a uid range that outlived the service that started them: processes whose
 * first ancestor outside the range is init (pid 1). A live service's sandboxes hang below the
 * service itself, so other services sharing the range are left alone. Runs once at start, as a
 * safety net behind --die-with-parent (e.g. after the service was killed during a sandbox's start).
 *
 * @example reapOrphans(1_500_000_000, 1_500_001_024) // [4242] when a crashed service left a sandbox
 */
export function reapOrphans(first: number, last: number): number[] {
  // A service that is pid 1 itself (a container's entry point) would see its own sandboxes as orphans.
  if (process.pid === 1) return [];
  const table = new Map<number, ProcessInfo>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const info = readProcess(Number(name));
    if (info) table.set(Number(name), info);
  }
  const inRange = (uid: number) => uid >= first && uid <= last;
  const killed: number[] = [];
  for (const [pid, info] of table) {
    if (!inRange(info.uid)) continue;
    let ancestor = info.parent;
    for (let depth = 0; depth < 64; depth++) {
      const parent = table.get(ancestor);
      if (!parent || !inRange(parent.uid)) break;
      ancestor = parent.parent;
    }
    if (ancestor !== 1) continue;
    try {
      process.kill(pid, "SIGKILL");
      killed.push(pid);
    } catch {
      // Gone meanwhile.
    }
  }
  return killed;
}
