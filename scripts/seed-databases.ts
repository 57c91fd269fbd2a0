// Run by `npm start` beside the build: `node scripts/seed-databases.ts <data dir>…` gives each embedded
// database directory that does not exist yet a copy of one freshly initialised cluster (see
// seedPgliteDataDirs); existing ones are not touched. Run by Node's own type stripping (no loader).
import { seedPgliteDataDirs } from "@app/db/seed";

await seedPgliteDataDirs(process.argv.slice(2));
