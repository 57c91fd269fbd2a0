import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";

/** Whether `dir` is missing or empty: a data directory PGlite would initialise from scratch. */
function isUninitialised(dir: string): boolean {
  return !existsSync(dir) || readdirSync(dir).length === 0;
}

/**
 * Initialises one empty PGlite cluster and copies it into each of `dataDirs` that is missing or
 * empty. initdb is most of a first start (about 2 s of CPU per database, and both services
 * ran one at once on a 2-core machine); until migrations run, every service's cluster is the same,
 * and copying one takes about 0.1 s. Each copy is built under a temporary name and renamed
 * into place, so a crash leaves a whole cluster or none. Directories that hold anything are left
 * alone: the service opens those itself. Returns those of `dataDirs` it found uninitialised that
 * now hold a cluster.
 *
 * @example await seedPgliteDataDirs(["./data/builder/db", "./data/payments/db"]);
 */
export async function seedPgliteDataDirs(dataDirs: readonly string[]): Promise<string[]> {
  const targets = dataDirs.filter(isUninitialised);
  const [first] = targets;
  if (first === undefined) return [];
  const staging = targets.map((dir) => `${dir}.seeding-${process.pid}`);
  try {
    const template = staging[0] as string;
    mkdirSync(dirname(template), { recursive: true });
    const client = await PGlite.create(template);
    // A clean shutdown checkpoints: the copies need no recovery when they are first opened.
    await client.close();
    for (const copy of staging.slice(1)) {
      mkdirSync(dirname(copy), { recursive: true });
      cpSync(template, copy, { recursive: true });
    }
    targets.forEach((dir, index) => {
      // openDatabase may have created the directory empty; a cluster in it since is not replaced.
      if (!isUninitialised(dir)) return;
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging[index] as string, dir);
    });
  } finally {
    for (const copy of staging) rmSync(copy, { recursive: true, force: true });
  }
  return targets.filter((dir) => existsSync(join(dir, "PG_VERSION")));
}
