// `npm run export-schema`: writes docs/export-format.schema.json, the JSON Schema of exported
// workflow and agent documents, from the definitions the import validates with (the builder serves
// the same at /api/schemas/export.json). apps/builder/src/portability/portability.test.ts fails
// while the committed file is stale.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { exportJsonSchema } from "../apps/builder/src/portability/json-schema.ts";

export const EXPORT_SCHEMA_FILE = fileURLToPath(
  new URL("../docs/export-format.schema.json", import.meta.url),
);

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  writeFileSync(EXPORT_SCHEMA_FILE, `${JSON.stringify(exportJsonSchema(), null, 2)}\n`);
  // In the repository's JSON style, so `npm run lint` passes on it as written.
  execFileSync("npx", ["biome", "format", "--write", EXPORT_SCHEMA_FILE], { stdio: "ignore" });
  console.log(`Wrote ${EXPORT_SCHEMA_FILE}`);
}
