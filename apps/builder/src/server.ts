import { runService } from "@app/http";
import { loadConfig } from "./config.ts";
import { startBuilder } from "./start.ts";

await runService({
  name: "builder",
  configure: () => loadConfig(process.env),
  processes: (config) => config.processes,
  start: (config) => startBuilder(config),
});
