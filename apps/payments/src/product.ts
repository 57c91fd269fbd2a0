import { readFileSync } from "node:fs";

const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

/** `<Product>/<version>`: the User-Agent of every webhook delivery, for receivers' allowlists. */
export const PRODUCT_USER_AGENT = `PaymentService/${packageJson.version}`;
