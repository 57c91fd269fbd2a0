// Migrations of the engine's tables alone, used by this package's own tests. Apps re-export the
// tables into their schema and generate their own migrations.
import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "postgresql",
  schema: "./src/schema.ts",
  out: "./test/drizzle",
});
