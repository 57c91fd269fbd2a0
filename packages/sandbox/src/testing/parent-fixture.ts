// Started by host.test.ts as a stand-in for the service: it holds a warm runner and a long run,
// and is then killed with SIGKILL to check that nothing of the sandbox outlives it.
import { createSandbox } from "../index.ts";

const uidBase = Number(process.argv[2]);
const sandbox = await createSandbox({ uidBase, warmPerLanguage: 1, concurrency: 1 });
const listing = await sandbox.run({
  language: "python",
  code: "import os\ndef main(inputs):\n    return {'fds': sorted(int(fd) for fd in os.listdir('/proc/self/fd'))}\n",
  input: {},
});
process.stdout.write(`${JSON.stringify({ fds: listing.output?.fds ?? null, error: listing.error })}\n`);
void sandbox.run({
  language: "python",
  code: "import time\ndef main(inputs):\n    time.sleep(120)\n    return {}\n",
  input: {},
  timeoutMs: 60_000,
});
process.stdout.write("running\n");
setInterval(() => {}, 60_000);
