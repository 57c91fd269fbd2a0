import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { EXIT_CONFIG, type ServiceProcess, Supervisor, type Timers } from "./supervisor.ts";

/** A clock the test moves and timers it fires by hand: nothing here waits for a backoff delay. */
class ManualTimers implements Timers {
  time = 0;
  pending: { ms: number; run: () => void; isCancelled: boolean }[] = [];
  now() {
    return this.time;
  }
  after(ms: number, run: () => void) {
    const timer = { ms, run, isCancelled: false };
    this.pending.push(timer);
    return () => {
      timer.isCancelled = true;
    };
  }
  /** Fires the earliest live timer, returning its delay. */
  fireNext(): number {
    const live = this.pending.filter((timer) => !timer.isCancelled).sort((a, b) => a.ms - b.ms);
    const next = live[0];
    if (!next) throw new Error("no timer pending");
    this.pending = this.pending.filter((timer) => timer !== next);
    next.run();
    return next.ms;
  }
  liveDelays(): number[] {
    return this.pending.filter((timer) => !timer.isCancelled).map((timer) => timer.ms);
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
}

/** A real HTTP service process answering its name and pid; exits with EXIT_CODE at start when given. */
function httpService(name: string, port: number, extraEnv: Record<string, string> = {}): ServiceProcess {
  const source = `
    if (process.env.EXIT_CODE) process.exit(Number(process.env.EXIT_CODE));
    const server = require("node:http").createServer((req, res) => res.end(JSON.stringify({ name: ${JSON.stringify(name)}, pid: process.pid })));
    server.listen(${port}, "127.0.0.1");
    process.on("SIGTERM", () => server.close(() => process.exit(0)));`;
  return {
    name,
    command: process.execPath,
    args: ["-e", source],
    env: { ...process.env, ...extraEnv },
    cwd: process.cwd(),
  };
}

async function ask(port: number): Promise<{ name: string; pid: number } | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/`);
    return (await response.json()) as { name: string; pid: number };
  } catch {
    return undefined;
  }
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 400; i++) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let running: Supervisor | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe("the npm start supervisor", () => {
  it("restarts a SIGKILLed service after 0.5 s, 1 s, … with the reason logged, while the other keeps answering", async () => {
    const timers = new ManualTimers();
    const lines: string[] = [];
    const [paymentsPort, builderPort] = [await freePort(), await freePort()];
    const supervisor = new Supervisor({
      services: [httpService("payments", paymentsPort), httpService("builder", builderPort)],
      log: (line) => lines.push(line),
      timers,
    });
    running = supervisor;
    supervisor.start();
    const first = await until(() => ask(paymentsPort), "payments");
    const builder = await until(() => ask(builderPort), "builder");

    process.kill(first.pid, "SIGKILL");
    await until(() => lines.find((line) => line.startsWith("payments exited")), "the exit to be logged");
    expect(lines.at(-1)).toMatch(/payments exited unexpectedly: killed by SIGKILL .*restarting in 0\.5 s/);
    // The builder is the same process and still answers while payments is down.
    expect(await ask(paymentsPort)).toBeUndefined();
    expect(await ask(builderPort)).toEqual(builder);

    expect(timers.fireNext()).toBe(500);
    const second = await until(() => ask(paymentsPort), "payments to come back");
    expect(second.pid).not.toBe(first.pid);

    process.kill(second.pid, "SIGKILL");
    await until(() => timers.liveDelays().length > 0 || undefined, "the second restart to be scheduled");
    expect(timers.liveDelays()).toEqual([1000]);
    timers.fireNext();
    const third = await until(() => ask(paymentsPort), "payments to come back again");

    // A service that stayed up a minute starts its backoff from the first delay again.
    timers.time += 60_000;
    process.kill(third.pid, "SIGKILL");
    await until(() => timers.liveDelays().length > 0 || undefined, "the third restart to be scheduled");
    expect(timers.liveDelays()).toEqual([500]);
    expect(await ask(builderPort)).toEqual(builder);
  });

  it("stops every service on stop() and cancels a pending restart", async () => {
    const timers = new ManualTimers();
    const [aPort, bPort] = [await freePort(), await freePort()];
    const lines: string[] = [];
    const supervisor = new Supervisor({
      services: [httpService("a", aPort), httpService("b", bPort)],
      log: (line) => lines.push(line),
      timers,
    });
    running = supervisor;
    supervisor.start();
    const a = await until(() => ask(aPort), "a");
    await until(() => ask(bPort), "b");
    process.kill(a.pid, "SIGKILL");
    await until(() => lines.find((line) => line.startsWith("a exited")), "a's exit");

    expect(await supervisor.stop()).toBe(0);
    expect(supervisor.pids()).toEqual({ a: undefined, b: undefined });
    expect(await ask(bPort)).toBeUndefined();
    // The restart that was pending when stop() came is not carried out.
    const restarts = timers.pending.filter((timer) => timer.ms === 500);
    expect(restarts.every((timer) => timer.isCancelled)).toBe(true);
  });

  it("kills a service that does not stop within the grace period and ends with code 1", async () => {
    const timers = new ManualTimers();
    const port = await freePort();
    const stubborn: ServiceProcess = {
      ...httpService("stubborn", port),
      args: [
        "-e",
        `require("node:http").createServer((q, s) => s.end('{"name":"stubborn","pid":' + process.pid + '}')).listen(${port}, "127.0.0.1"); process.on("SIGTERM", () => {});`,
      ],
    };
    const supervisor = new Supervisor({ services: [stubborn], log: () => {}, timers, stopGraceMs: 15_000 });
    running = supervisor;
    supervisor.start();
    await until(() => ask(port), "the service");
    const stopped = supervisor.stop();
    await until(() => timers.liveDelays().includes(15_000) || undefined, "the kill timer");
    timers.fireNext();
    expect(await stopped).toBe(1);
  });

  it("does not restart a service whose configuration is invalid (exit code 78) and reports it", async () => {
    const timers = new ManualTimers();
    const lines: string[] = [];
    const supervisor = new Supervisor({
      services: [httpService("payments", await freePort(), { EXIT_CODE: String(EXIT_CONFIG) })],
      log: (line) => lines.push(line),
      timers,
    });
    running = supervisor;
    supervisor.start();
    expect(await supervisor.failed).toBe(EXIT_CONFIG);
    expect(timers.liveDelays()).toEqual([]);
    expect(lines).toEqual([expect.stringMatching(/payments stopped: its configuration is invalid/)]);
    expect(await supervisor.stop()).toBe(EXIT_CONFIG);
  });
});
