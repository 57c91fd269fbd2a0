import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Which mechanism caps a run's memory and process count, and why. */
export type LimitMechanism =
  | { kind: "cgroup_v2"; parent: string; detail: string }
  | { kind: "rlimit"; detail: string };

/** One run's cgroup: the tree is moved in before it forks, and the group is removed afterwards. */
export interface RunCgroup {
  path: string;
  adopt(pid: number): void;
  wasOomKilled(): boolean;
  /** OOM kills in this cgroup so far: a resident sandbox compares them before and after a node. */
  oomKills(): number;
  remove(): Promise<void>;
}

const CGROUP_ROOT = "/sys/fs/cgroup";
const REQUIRED_CONTROLLERS = ["memory", "pids"];

function controllers(file: string): string[] {
  try {
    return readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

function hasControllers(file: string): boolean {
  const list = controllers(file);
  return REQUIRED_CONTROLLERS.every((name) => list.includes(name));
}

/** Our own cgroup v2 directory from /proc/self/cgroup ("0::/path"), or undefined on a v1-only host. */
function ownCgroupDir(): string | undefined {
  let text: string;
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return undefined;
  }
  const line = text.split("\n").find((entry) => entry.startsWith("0::"));
  if (!line) return undefined;
  return join(CGROUP_ROOT, line.slice(3));
}

/**
 * Checks that children of `parent` get the memory and pids controllers, enabling them in its
 * subtree_control if needed. This never moves a process: a cgroup that holds processes cannot
 * hand controllers to children (cgroup v2's no-internal-process rule), and moving the service
 * itself is the operator's call (systemd `Delegate=yes`, or a prepared directory).
 */
function probeParent(parent: string): { isUsable: true } | { isUsable: false; reason: string } {
  if (!hasControllers(join(parent, "cgroup.controllers"))) {
    return { isUsable: false, reason: `${parent} has no memory and pids controllers delegated to it` };
  }
  if (!hasControllers(join(parent, "cgroup.subtree_control"))) {
    try {
      writeFileSync(join(parent, "cgroup.subtree_control"), "+memory +pids");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      return {
        isUsable: false,
        reason: `cannot enable memory and pids for children of ${parent} (${code}); delegate an empty cgroup and pass it as cgroupParent`,
      };
    }
  }
  const probe = join(parent, `sandbox-probe-${process.pid}`);
  try {
    mkdirSync(probe);
    const isUsable = hasControllers(join(probe, "cgroup.controllers"));
    writeFileSync(join(probe, "pids.max"), "8");
    return isUsable
      ? { isUsable: true }
      : { isUsable: false, reason: `children of ${parent} lack controllers` };
  } catch (error) {
    return { isUsable: false, reason: `cannot create cgroups under ${parent}: ${(error as Error).message}` };
  } finally {
    try {
      rmdirSync(probe);
    } catch {
      // Never created.
    }
  }
}

/**
 * Picks the limit mechanism: cgroup v2 memory.max and pids.max when the host delegates them,
 * otherwise per-process rlimits (and the reason, which /api/sandbox/runtimes reports).
 *
 * @example detectLimitMechanism("auto") // { kind: "rlimit", detail: "cgroup v2 is not mounted ..." } on a v1 host
 */
export function detectLimitMechanism(option: "auto" | "off" | { parent: string }): LimitMechanism {
  if (option === "off") return { kind: "rlimit", detail: "cgroups turned off by configuration" };
  if (typeof option === "object") {
    const probe = probeParent(option.parent);
    if (probe.isUsable)
      return { kind: "cgroup_v2", parent: option.parent, detail: "configured parent cgroup" };
    return { kind: "rlimit", detail: probe.reason };
  }
  if (!existsSync(join(CGROUP_ROOT, "cgroup.controllers"))) {
    return {
      kind: "rlimit",
      detail: "cgroup v2 is not mounted at /sys/fs/cgroup (cgroup v1 or hybrid host)",
    };
  }
  const own = ownCgroupDir();
  if (!own) return { kind: "rlimit", detail: "this process has no cgroup v2 membership" };
  const probe = probeParent(own);
  if (probe.isUsable) return { kind: "cgroup_v2", parent: own, detail: "delegated to this service" };
  return { kind: "rlimit", detail: probe.reason };
}

let counter = 0;

/**
 * Creates the cgroup of one run with memory.max (no swap) and pids.max.
 *
 * @example const cgroup = createRunCgroup(parent, { memoryBytes: 256 << 20, processes: 32 });
 */
export function createRunCgroup(
  parent: string,
  limits: { memoryBytes: number; processes: number },
): RunCgroup {
  counter += 1;
  const path = join(parent, `run-${process.pid}-${counter}`);
  mkdirSync(path);
  writeFileSync(join(path, "memory.max"), String(limits.memoryBytes));
  if (existsSync(join(path, "memory.swap.max"))) writeFileSync(join(path, "memory.swap.max"), "0");
  writeFileSync(join(path, "pids.max"), String(limits.processes));
  return {
    path,
    adopt(pid) {
      writeFileSync(join(path, "cgroup.procs"), String(pid));
    },
    wasOomKilled() {
      return this.oomKills() > 0;
    },
    oomKills() {
      try {
        const events = readFileSync(join(path, "memory.events"), "utf8");
        const match = /^oom_kill (\d+)$/m.exec(events);
        return match ? Number(match[1]) : 0;
      } catch {
        return 0;
      }
    },
    async remove() {
      // The kernel frees the group only once its last process is reaped, which can lag the exit.
      for (let attempt = 0; attempt < 50; attempt++) {
        try {
          rmdirSync(path);
          return;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
          if (existsSync(join(path, "cgroup.kill"))) {
            try {
              writeFileSync(join(path, "cgroup.kill"), "1");
            } catch {
              // Older kernels lack cgroup.kill.
            }
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    },
  };
}
