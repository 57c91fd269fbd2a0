/**
 * A small classic-BPF assembler and the sandbox's seccomp policy, so no native module or
 * libseccomp binding is needed: bwrap loads the bytes from a file descriptor (`--seccomp FD`).
 *
 * The policy is a denylist (the runtimes need a broad set of syscalls, and allowlists break on
 * every new glibc or runtime release, as Dify's did) with one guard against that weakness:
 * every syscall number above the highest one reviewed here fails with ENOSYS, so a syscall added
 * by a later kernel is closed until someone reviews it.
 */

export type SeccompArch = "x64" | "arm64";

/** `struct sock_filter`: one 8-byte instruction. */
export interface BpfInstruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

const BPF_LD_W_ABS = 0x20;
const BPF_JEQ_K = 0x15;
const BPF_JGE_K = 0x35;
const BPF_JSET_K = 0x45;
const BPF_AND_K = 0x54;
const BPF_RET_K = 0x06;

const RET_KILL_PROCESS = 0x80000000;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;

const EPERM = 1;
const ENOSYS = 38;
const EAFNOSUPPORT = 97;

/** Offsets in `struct seccomp_data`: nr, arch, then the 64-bit arguments (low half first on LE). */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
const argOffset = (index: number) => 16 + 8 * index;

const AUDIT_ARCH: Record<SeccompArch, number> = { x64: 0xc000003e, arm64: 0xc00000b7 };

/** Syscalls the policy names, per architecture (x86_64 table, and asm-generic for arm64). */
const SYSCALLS: Record<string, Record<SeccompArch, number | undefined>> = {
  socket: { x64: 41, arm64: 198 },
  clone: { x64: 56, arm64: 220 },
  clone3: { x64: 435, arm64: 435 },
  ioctl: { x64: 16, arm64: 29 },
  mmap: { x64: 9, arm64: 222 },
  unshare: { x64: 272, arm64: 97 },
  setns: { x64: 308, arm64: 268 },
  mount: { x64: 165, arm64: 40 },
  umount2: { x64: 166, arm64: 39 },
  pivot_root: { x64: 155, arm64: 41 },
  chroot: { x64: 161, arm64: 51 },
  open_tree: { x64: 428, arm64: 428 },
  move_mount: { x64: 429, arm64: 429 },
  fsopen: { x64: 430, arm64: 430 },
  fsconfig: { x64: 431, arm64: 431 },
  fsmount: { x64: 432, arm64: 432 },
  fspick: { x64: 433, arm64: 433 },
  mount_setattr: { x64: 442, arm64: 442 },
  open_tree_attr: { x64: 467, arm64: 467 },
  add_key: { x64: 248, arm64: 217 },
  request_key: { x64: 249, arm64: 218 },
  keyctl: { x64: 250, arm64: 219 },
  ptrace: { x64: 101, arm64: 117 },
  process_vm_readv: { x64: 310, arm64: 270 },
  process_vm_writev: { x64: 311, arm64: 271 },
  pidfd_getfd: { x64: 438, arm64: 438 },
  kcmp: { x64: 312, arm64: 272 },
  bpf: { x64: 321, arm64: 280 },
  perf_event_open: { x64: 298, arm64: 241 },
  io_uring_setup: { x64: 425, arm64: 425 },
  io_uring_enter: { x64: 426, arm64: 426 },
  io_uring_register: { x64: 427, arm64: 427 },
  memfd_create: { x64: 319, arm64: 279 },
  memfd_secret: { x64: 447, arm64: 447 },
  userfaultfd: { x64: 323, arm64: 282 },
  kexec_load: { x64: 246, arm64: 104 },
  kexec_file_load: { x64: 320, arm64: 294 },
  init_module: { x64: 175, arm64: 105 },
  finit_module: { x64: 313, arm64: 273 },
  delete_module: { x64: 176, arm64: 106 },
  reboot: { x64: 169, arm64: 142 },
  swapon: { x64: 167, arm64: 224 },
  swapoff: { x64: 168, arm64: 225 },
  acct: { x64: 163, arm64: 89 },
  quotactl: { x64: 179, arm64: 60 },
  quotactl_fd: { x64: 443, arm64: 443 },
  syslog: { x64: 103, arm64: 116 },
  uselib: { x64: 134, arm64: undefined },
  ioperm: { x64: 173, arm64: undefined },
  iopl: { x64: 172, arm64: undefined },
  modify_ldt: { x64: 154, arm64: undefined },
  lookup_dcookie: { x64: 212, arm64: 18 },
  nfsservctl: { x64: 180, arm64: 42 },
  vhangup: { x64: 153, arm64: 58 },
  personality: { x64: 135, arm64: 92 },
  name_to_handle_at: { x64: 303, arm64: 264 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  fanotify_init: { x64: 300, arm64: 262 },
  shmget: { x64: 29, arm64: 194 },
  shmat: { x64: 30, arm64: 196 },
  msgget: { x64: 68, arm64: 186 },
  semget: { x64: 64, arm64: 190 },
};

/**
 * Denied outright with EPERM, grouped by why:
 * - namespaces and mounts: the way out of bwrap's view of the filesystem (CVE-2021-41133 used the new mount API);
 * - keyrings: shared across sandboxes, a side channel isolate also closes;
 * - ptrace and friends: reading or steering another process, or stealing its file descriptors;
 * - bpf, perf, io_uring, userfaultfd: large kernel attack surface with a history of exploits;
 * - memfd_create and System V shm: memory that RLIMIT_DATA does not count (measured: 800 MB in memfds
 *   under a 64 MiB data limit), which matters whenever no cgroup caps the run;
 * - the rest: host administration, which needs capabilities the sandbox lacks, denied for defence in depth.
 */
export const DENIED_SYSCALLS = [
  "unshare",
  "setns",
  "mount",
  "umount2",
  "pivot_root",
  "chroot",
  "open_tree",
  "move_mount",
  "fsopen",
  "fsconfig",
  "fsmount",
  "fspick",
  "mount_setattr",
  "open_tree_attr",
  "add_key",
  "request_key",
  "keyctl",
  "ptrace",
  "process_vm_readv",
  "process_vm_writev",
  "pidfd_getfd",
  "kcmp",
  "bpf",
  "perf_event_open",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
  "memfd_create",
  "memfd_secret",
  "userfaultfd",
  "shmget",
  "shmat",
  // System V queues and semaphores outlive their process in the sandbox's IPC namespace: a Python
  // node could leave data in one for the zygote's next node.
  "msgget",
  "semget",
  "kexec_load",
  "kexec_file_load",
  "init_module",
  "finit_module",
  "delete_module",
  "reboot",
  "swapon",
  "swapoff",
  "acct",
  "quotactl",
  "quotactl_fd",
  "syslog",
  "uselib",
  "ioperm",
  "iopl",
  "modify_ldt",
  "lookup_dcookie",
  "nfsservctl",
  "vhangup",
  "personality",
  "name_to_handle_at",
  "open_by_handle_at",
  "fanotify_init",
] as const;

/** The highest syscall number reviewed for this policy (file_setattr, Linux 6.17); higher ones get ENOSYS. */
export const HIGHEST_REVIEWED_SYSCALL = 469;

/** Socket families the runtimes need: AF_UNIX, AF_INET, AF_INET6 (the network namespace has only loopback). */
const ALLOWED_SOCKET_FAMILIES = [1, 2, 10];

/** CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET (NEWTIME shares bits with the exit signal in clone). */
const CLONE_NAMESPACE_FLAGS = 0x7e020000;

/** TIOCSTI and TIOCLINUX push keystrokes into a terminal (CVE-2017-5226); `--new-session` is the first guard. */
const TERMINAL_INJECTION_IOCTLS = [0x5412, 0x541c];

/** MAP_SHARED (0x01), MAP_SHARED_VALIDATE (0x03) and MAP_ANONYMOUS (0x20). */
const MAP_TYPE_AND_ANON_MASK = 0x23;

type Step = BpfInstruction | { label: string } | { jump: "jeq" | "jge" | "jset"; k: number; to: string };

function statement(code: number, k: number): BpfInstruction {
  return { code, jt: 0, jf: 0, k: k >>> 0 };
}

const ret = (value: number) => statement(BPF_RET_K, value);
const errno = (code: number) => ret(RET_ERRNO | code);
const load = (offset: number) => statement(BPF_LD_W_ABS, offset);

/**
 * Resolves labels into the 8-bit forward offsets of conditional jumps. A conditional jump in this
 * assembler jumps to its label when true and falls through when false.
 *
 * @example assemble([load(0), { jump: "jeq", k: 41, to: "deny" }, ret(RET_ALLOW), { label: "deny" }, errno(1)])
 */
export function assemble(steps: readonly Step[]): BpfInstruction[] {
  const positions = new Map<string, number>();
  let count = 0;
  for (const step of steps) {
    if ("label" in step) positions.set(step.label, count);
    else count++;
  }
  const out: BpfInstruction[] = [];
  for (const step of steps) {
    if ("label" in step) continue;
    if ("jump" in step) {
      const target = positions.get(step.to);
      if (target === undefined) throw new Error(`seccomp: unknown label ${step.to}`);
      const offset = target - out.length - 1;
      if (offset < 0 || offset > 255) throw new Error(`seccomp: jump to ${step.to} out of range (${offset})`);
      const code = step.jump === "jeq" ? BPF_JEQ_K : step.jump === "jge" ? BPF_JGE_K : BPF_JSET_K;
      out.push({ code, jt: offset, jf: 0, k: step.k >>> 0 });
      continue;
    }
    out.push(step);
  }
  if (out.length > 4096) throw new Error("seccomp: program longer than BPF_MAXINSNS");
  return out;
}

/**
 * Serialises instructions as the kernel's `struct sock_filter[]` (little-endian, as on x86_64 and arm64).
 *
 * @example encode([{ code: 0x06, jt: 0, jf: 0, k: 0x7fff0000 }]) // <Buffer 06 00 00 00 00 00 ff 7f>
 */
export function encode(program: readonly BpfInstruction[]): Buffer {
  const buffer = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    buffer.writeUInt16LE(instruction.code, index * 8);
    buffer.writeUInt8(instruction.jt, index * 8 + 2);
    buffer.writeUInt8(instruction.jf, index * 8 + 3);
    buffer.writeUInt32LE(instruction.k >>> 0, index * 8 + 4);
  });
  return buffer;
}

function syscallNumber(name: string, arch: SeccompArch): number | undefined {
  const entry = SYSCALLS[name];
  if (!entry) throw new Error(`seccomp: no number for ${name}`);
  return entry[arch];
}

/**
 * The sandbox's policy as BPF instructions for one architecture.
 *
 * @example const program = sandboxPolicy("x64"); // ~150 instructions
 */
export function sandboxPolicy(arch: SeccompArch): BpfInstruction[] {
  const nr = (name: string) => {
    const value = syscallNumber(name, arch);
    if (value === undefined) throw new Error(`seccomp: ${name} does not exist on ${arch}`);
    return value;
  };
  const steps: Step[] = [
    load(ARCH_OFFSET),
    { jump: "jeq", k: AUDIT_ARCH[arch], to: "arch_ok" },
    // Another ABI (i386 through int 0x80) has other syscall numbers: nothing below would hold.
    ret(RET_KILL_PROCESS),
    { label: "arch_ok" },
    load(NR_OFFSET),
  ];
  if (arch === "x64") {
    // The x32 ABI reaches the same syscalls with bit 30 set, past every check below.
    steps.push({ jump: "jge", k: 0x40000000, to: "eperm" });
  }
  steps.push({ jump: "jge", k: HIGHEST_REVIEWED_SYSCALL + 1, to: "enosys" });

  // Frequent syscalls first: mmap is called constantly by every runtime.
  steps.push({ jump: "jeq", k: nr("mmap"), to: "mmap" });
  steps.push({ jump: "jeq", k: nr("ioctl"), to: "ioctl" });
  steps.push({ jump: "jeq", k: nr("socket"), to: "socket" });
  steps.push({ jump: "jeq", k: nr("clone"), to: "clone" });
  steps.push({ jump: "jeq", k: nr("clone3"), to: "enosys" });
  for (const name of DENIED_SYSCALLS) {
    const value = syscallNumber(name, arch);
    if (value !== undefined) steps.push({ jump: "jeq", k: value, to: "eperm" });
  }
  steps.push(ret(RET_ALLOW));

  // Shared anonymous memory is not counted by RLIMIT_DATA (measured: 1 GB under a 64 MiB limit).
  steps.push({ label: "mmap" }, load(argOffset(3)), statement(BPF_AND_K, MAP_TYPE_AND_ANON_MASK));
  steps.push({ jump: "jeq", k: 0x21, to: "eperm" }, { jump: "jeq", k: 0x23, to: "eperm" }, ret(RET_ALLOW));

  steps.push({ label: "ioctl" }, load(argOffset(1)));
  for (const request of TERMINAL_INJECTION_IOCTLS) steps.push({ jump: "jeq", k: request, to: "eperm" });
  steps.push(ret(RET_ALLOW));

  steps.push({ label: "socket" }, load(argOffset(0)));
  for (const family of ALLOWED_SOCKET_FAMILIES) steps.push({ jump: "jeq", k: family, to: "allow" });
  steps.push(errno(EAFNOSUPPORT));

  // glibc uses clone for threads and fork; only the namespace flags are refused.
  steps.push({ label: "clone" }, load(argOffset(0)), { jump: "jset", k: CLONE_NAMESPACE_FLAGS, to: "eperm" });
  steps.push(ret(RET_ALLOW));

  steps.push({ label: "allow" }, ret(RET_ALLOW));
  steps.push({ label: "eperm" }, errno(EPERM));
  // ENOSYS, not EPERM, so glibc falls back from clone3 to clone.
  steps.push({ label: "enosys" }, errno(ENOSYS));
  return assemble(steps);
}

/**
 * The seccomp architecture of this Node process, or undefined where the policy has no syscall table.
 *
 * @example hostSeccompArch("x64") // "x64"; hostSeccompArch("riscv64") // undefined
 */
export function hostSeccompArch(arch: string = process.arch): SeccompArch | undefined {
  return arch === "x64" || arch === "arm64" ? arch : undefined;
}

/**
 * The policy as bytes for `bwrap --seccomp FD`.
 *
 * @example child.stdio[4].end(seccompFilter("x64"));
 */
export function seccompFilter(arch: SeccompArch): Buffer {
  return encode(sandboxPolicy(arch));
}

/**
 * Runs a program over a `seccomp_data` the way the kernel does, for tests of the policy without a kernel.
 *
 * @example evaluate(sandboxPolicy("x64"), { arch: 0xc000003e, nr: 272, args: [] }) // RET_ERRNO | EPERM
 */
export function evaluate(
  program: readonly BpfInstruction[],
  data: { arch: number; nr: number; args: readonly number[] },
): number {
  let accumulator = 0;
  let pc = 0;
  while (pc < program.length) {
    const instruction = program[pc] as BpfInstruction;
    switch (instruction.code) {
      case BPF_LD_W_ABS: {
        const offset = instruction.k;
        if (offset === NR_OFFSET) accumulator = data.nr >>> 0;
        else if (offset === ARCH_OFFSET) accumulator = data.arch >>> 0;
        else accumulator = (data.args[(offset - 16) / 8] ?? 0) >>> 0;
        pc++;
        break;
      }
      case BPF_AND_K:
        accumulator = (accumulator & instruction.k) >>> 0;
        pc++;
        break;
      case BPF_JEQ_K:
        pc += 1 + (accumulator === instruction.k ? instruction.jt : instruction.jf);
        break;
      case BPF_JGE_K:
        pc += 1 + (accumulator >= instruction.k ? instruction.jt : instruction.jf);
        break;
      case BPF_JSET_K:
        pc += 1 + ((accumulator & instruction.k) !== 0 ? instruction.jt : instruction.jf);
        break;
      case BPF_RET_K:
        return instruction.k >>> 0;
      default:
        throw new Error(`seccomp: unknown instruction ${instruction.code}`);
    }
  }
  throw new Error("seccomp: program fell off the end");
}

export const SECCOMP_RESULTS = {
  ALLOW: RET_ALLOW,
  KILL_PROCESS: RET_KILL_PROCESS,
  ERRNO: RET_ERRNO,
} as const;

/**
 * The syscall number of `name` on `arch`, for tests and diagnostics.
 *
 * @example syscallNumberOf("unshare", "x64") // 272
 */
export function syscallNumberOf(name: string, arch: SeccompArch): number | undefined {
  return syscallNumber(name, arch);
}
