import { spawn } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { reapOrphans } from "./orphans.ts";
import { eventually, killOwnedBy, processesOwnedBy } from "./testing/processes.ts";

const UID = 1_670_000_000;

afterAll(() => killOwnedBy(UID, UID));

describe("reapOrphans", () => {
  it.skipIf(process.getuid?.() !== 0)(
    "kills processes of the range that init inherited, and spares those of a live parent",
    async () => {
      // The shell exits at once, so its sleeping child is reparented to init: an orphan.
      spawn("/bin/sh", ["-c", "/bin/sleep 60 & exit 0"], {
        stdio: "ignore",
        detached: true,
        uid: UID,
        gid: UID,
      });
      const live = spawn("/bin/sleep", ["60"], { stdio: "ignore", uid: UID, gid: UID });
      expect(await eventually(() => processesOwnedBy(UID, UID).length === 2)).toBe(true);

      const killed = reapOrphans(UID, UID);
      expect(killed).toHaveLength(1);
      expect(killed).not.toContain(live.pid);
      expect(await eventually(() => processesOwnedBy(UID, UID).length === 1)).toBe(true);
      expect(processesOwnedBy(UID, UID)).toEqual([live.pid]);
      live.kill("SIGKILL");
    },
  );
});
