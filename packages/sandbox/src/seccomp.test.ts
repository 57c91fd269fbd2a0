import { describe, expect, it } from "vitest";
import {
  assemble,
  DENIED_SYSCALLS,
  encode,
  evaluate,
  HIGHEST_REVIEWED_SYSCALL,
  SECCOMP_RESULTS,
  type SeccompArch,
  sandboxPolicy,
  syscallNumberOf,
} from "./seccomp.ts";

const ARCH = { x64: 0xc000003e, arm64: 0xc00000b7 } as const;
const EPERM = SECCOMP_RESULTS.ERRNO | 1;
const ENOSYS = SECCOMP_RESULTS.ERRNO | 38;
const EAFNOSUPPORT = SECCOMP_RESULTS.ERRNO | 97;

function verdict(arch: SeccompArch, name: string, args: number[] = []): number {
  const nr = syscallNumberOf(name, arch);
  if (nr === undefined) throw new Error(`${name} has no number on ${arch}`);
  return evaluate(sandboxPolicy(arch), { arch: ARCH[arch], nr, args });
}

describe.each(["x64", "arm64"] as const)("the seccomp policy on %s", (arch) => {
  it("denies namespace, mount, keyring, ptrace, bpf, io_uring and memfd calls with EPERM", () => {
    for (const name of [
      "unshare",
      "setns",
      "mount",
      "fsopen",
      "open_tree",
      "keyctl",
      "add_key",
      "ptrace",
      "process_vm_readv",
      "bpf",
      "io_uring_setup",
      "memfd_create",
      "msgget",
      "semget",
      "userfaultfd",
    ]) {
      expect(verdict(arch, name), name).toBe(EPERM);
    }
  });

  it("denies every listed syscall that exists on the architecture", () => {
    for (const name of DENIED_SYSCALLS) {
      if (syscallNumberOf(name, arch) === undefined) continue;
      expect(verdict(arch, name), name).toBe(EPERM);
    }
  });

  it("allows only the unix and inet socket families", () => {
    expect(verdict(arch, "socket", [1])).toBe(SECCOMP_RESULTS.ALLOW);
    expect(verdict(arch, "socket", [2])).toBe(SECCOMP_RESULTS.ALLOW);
    expect(verdict(arch, "socket", [10])).toBe(SECCOMP_RESULTS.ALLOW);
    for (const family of [16 /* netlink */, 17 /* packet */, 40 /* vsock */, 38 /* alg */, 44 /* xdp */]) {
      expect(verdict(arch, "socket", [family]), `family ${family}`).toBe(EAFNOSUPPORT);
    }
  });

  it("lets threads and fork through clone but not new namespaces", () => {
    const threadFlags = 0x3d0f00; // what glibc passes for pthread_create
    expect(verdict(arch, "clone", [threadFlags])).toBe(SECCOMP_RESULTS.ALLOW);
    expect(verdict(arch, "clone", [17 /* SIGCHLD: fork */])).toBe(SECCOMP_RESULTS.ALLOW);
    expect(verdict(arch, "clone", [0x10000000 | 17 /* CLONE_NEWUSER */])).toBe(EPERM);
    expect(verdict(arch, "clone", [0x40000000 /* CLONE_NEWNET */])).toBe(EPERM);
    expect(verdict(arch, "clone3")).toBe(ENOSYS);
  });

  it("refuses shared anonymous memory, which RLIMIT_DATA does not count, but not private or file mappings", () => {
    const MAP_SHARED = 0x01;
    const MAP_PRIVATE = 0x02;
    const MAP_ANONYMOUS = 0x20;
    expect(verdict(arch, "mmap", [0, 4096, 3, MAP_SHARED | MAP_ANONYMOUS])).toBe(EPERM);
    expect(verdict(arch, "mmap", [0, 4096, 3, 0x03 | MAP_ANONYMOUS])).toBe(EPERM);
    expect(verdict(arch, "mmap", [0, 4096, 3, MAP_PRIVATE | MAP_ANONYMOUS])).toBe(SECCOMP_RESULTS.ALLOW);
    expect(verdict(arch, "mmap", [0, 4096, 1, MAP_SHARED])).toBe(SECCOMP_RESULTS.ALLOW);
  });

  it("refuses terminal injection ioctls only", () => {
    expect(verdict(arch, "ioctl", [0, 0x5412 /* TIOCSTI */])).toBe(EPERM);
    expect(verdict(arch, "ioctl", [0, 0x5401 /* TCGETS */])).toBe(SECCOMP_RESULTS.ALLOW);
  });

  it("answers syscalls newer than the reviewed table with ENOSYS", () => {
    const program = sandboxPolicy(arch);
    expect(evaluate(program, { arch: ARCH[arch], nr: HIGHEST_REVIEWED_SYSCALL + 1, args: [] })).toBe(ENOSYS);
    expect(evaluate(program, { arch: ARCH[arch], nr: 1000, args: [] })).toBe(ENOSYS);
    expect(evaluate(program, { arch: ARCH[arch], nr: 452 /* fchmodat2, used by glibc */, args: [] })).toBe(
      SECCOMP_RESULTS.ALLOW,
    );
  });

  it("kills a process that switches to another syscall ABI", () => {
    const other = arch === "x64" ? 0x40000003 /* i386 */ : ARCH.x64;
    expect(evaluate(sandboxPolicy(arch), { arch: other, nr: 1, args: [] })).toBe(
      SECCOMP_RESULTS.KILL_PROCESS,
    );
  });
});

describe("the BPF assembler", () => {
  it("refuses the x32 ABI on x86_64", () => {
    expect(evaluate(sandboxPolicy("x64"), { arch: ARCH.x64, nr: 0x40000000 + 272, args: [] })).toBe(EPERM);
    expect(evaluate(sandboxPolicy("x64"), { arch: ARCH.x64, nr: 0x40000000, args: [] })).toBe(EPERM);
  });

  it("encodes struct sock_filter little-endian, 8 bytes per instruction", () => {
    const bytes = encode([{ code: 0x06, jt: 1, jf: 2, k: 0x7fff0000 }]);
    expect([...bytes]).toEqual([0x06, 0x00, 0x01, 0x02, 0x00, 0x00, 0xff, 0x7f]);
  });

  it("resolves labels to forward offsets and rejects unknown ones", () => {
    const program = assemble([
      { code: 0x20, jt: 0, jf: 0, k: 0 },
      { jump: "jeq", k: 5, to: "hit" },
      { code: 0x06, jt: 0, jf: 0, k: 0 },
      { label: "hit" },
      { code: 0x06, jt: 0, jf: 0, k: 1 },
    ]);
    expect(program[1]).toEqual({ code: 0x15, jt: 1, jf: 0, k: 5 });
    expect(() => assemble([{ jump: "jeq", k: 1, to: "nowhere" }])).toThrow(/unknown label/);
  });
});
