import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox, SandboxUnavailableError } from "./index.ts";
import { describeProcesses, eventually, killOwnedBy, processesOwnedBy } from "./testing/processes.ts";

const FIXTURE_UID_BASE = 1_620_000_000;
const FIXTURE_UID_LAST = FIXTURE_UID_BASE + 1024;

afterAll(() => killOwnedBy(FIXTURE_UID_BASE, FIXTURE_UID_LAST));

describe("a host without bubblewrap", () => {
  it("refuses to run anything and says how to install it", async () => {
    const sandbox = await createSandbox({ bwrapPath: "/nonexistent/bwrap", warmPerLanguage: 0 });
    const report = sandbox.runtimes();
    expect(report.isAvailable).toBe(false);
    expect(report.reason).toContain("apt-get install bubblewrap");
    expect(report.languages.every((language) => !language.isAvailable)).toBe(true);
    await expect(
      sandbox.run({ language: "python", code: "def main(inputs):\n    return {}\n", input: {} }),
    ).rejects.toBeInstanceOf(SandboxUnavailableError);
    await sandbox.close();
  });
});

describe("the runtimes report", () => {
  it("lists the four languages with versions and names the limit mechanism in force", async () => {
    const sandbox = await createSandbox({ warmPerLanguage: 0 });
    const report = sandbox.runtimes();
    await sandbox.close();
    expect(report.isAvailable).toBe(true);
    expect(report.isolation.bubblewrap).toMatch(/^\d+\.\d+/);
    expect(report.isolation.seccomp).toBe(true);
    expect(["cgroup_v2", "rlimit"]).toContain(report.limits.mechanism);
    expect(report.limits.detail.length).toBeGreaterThan(0);
    const versions = Object.fromEntries(report.languages.map((entry) => [entry.language, entry.version]));
    expect(versions.python).toMatch(/^3\.\d+/);
    expect(versions.javascript).toBe(process.versions.node);
    expect(versions.go).toMatch(/^1\.\d+/);
    expect(versions.rust).toMatch(/^1\.\d+.*serde_json/);
  });
});

describe("when the service dies", () => {
  it("takes every sandbox down with it, and never hands the code descriptors the service inherited", async () => {
    const fixture = fileURLToPath(new URL("./testing/parent-fixture.ts", import.meta.url));
    // fd 7 stands for a descriptor a supervisor or CI runner left open in the service.
    const child = spawn(process.execPath, ["--import", "tsx", fixture, String(FIXTURE_UID_BASE)], {
      stdio: ["ignore", "pipe", "inherit", "ignore", "ignore", "ignore", "ignore", "pipe"],
    });
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    try {
      expect(await eventually(() => stdout.includes("running\n"), 20_000)).toBe(true);
      const listing = JSON.parse(stdout.split("\n")[0] ?? "{}") as { fds: number[] | null };
      expect(listing.fds).not.toBeNull();
      expect(listing.fds).not.toContain(7);
      expect(Math.max(...(listing.fds ?? [99]))).toBeLessThanOrEqual(4);
      // The long run and a warm runner are alive under the fixture's uids.
      expect(
        await eventually(() => processesOwnedBy(FIXTURE_UID_BASE, FIXTURE_UID_LAST).length >= 2, 10_000),
      ).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
    const isGone = await eventually(
      () => processesOwnedBy(FIXTURE_UID_BASE, FIXTURE_UID_LAST).length === 0,
      10_000,
    );
    expect(isGone, describeProcesses(processesOwnedBy(FIXTURE_UID_BASE, FIXTURE_UID_LAST)).join("\n")).toBe(
      true,
    );
  });
});
