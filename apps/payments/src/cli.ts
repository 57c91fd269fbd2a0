// `npm run payments -- merchant:create --name "Toko Kopi"`: creates a merchant and prints its keys once.
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { systemClock } from "@app/core";
import { loadPaymentsConfig } from "./config.ts";
import { openPaymentsDatabase } from "./db/index.ts";
import { createMerchant } from "./merchants/create-merchant.ts";

const USAGE = 'usage: npm run payments -- merchant:create --name "Merchant name"';

const [command, ...rest] = process.argv.slice(2);
if (command !== "merchant:create") {
  console.error(USAGE);
  process.exit(2);
}
let name: string | undefined;
try {
  name = parseArgs({ args: rest, options: { name: { type: "string" } } }).values.name?.trim();
} catch (error) {
  // A mistyped option or a missing value deserves the reason and the usage, not a stack trace.
  console.error(error instanceof Error ? error.message : String(error));
}
if (!name) {
  console.error(USAGE);
  process.exit(2);
}
// npm runs workspace scripts inside apps/payments; a relative DATA_DIR (and the default ./data) means
// the directory the command was typed in, so the CLI writes to the database `npm start` uses.
const invokedFrom = process.env.INIT_CWD ?? process.cwd();
const config = loadPaymentsConfig({
  ...process.env,
  DATA_DIR: resolve(invokedFrom, process.env.DATA_DIR || "./data"),
});
const database = await openPaymentsDatabase({ url: config.databaseUrl, dataDir: `${config.dataDir}/db` });
try {
  const { merchant, keys } = await createMerchant({ db: database.db, clock: systemClock }, { name });
  console.log(JSON.stringify({ merchant: merchant.id, name: merchant.name, secret_keys: keys }, null, 2));
  console.error("Store the keys now: they are not shown again.");
} finally {
  await database.close();
}
