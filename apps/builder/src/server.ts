import { runService } from "@app/http";
import { loadConfig } from "./config.ts";
import { startBuilder } from "./start.ts";

await runService("builder", () => startBuilder(loadConfig(process.env)));
