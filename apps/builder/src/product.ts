import { readFileSync } from "node:fs";

const packageJson = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

/** `<Product>/<version>`: the User-Agent of every webhook the builder delivers, for receivers' allowlists. */
export const BUILDER_USER_AGENT = `AIBuilder/${packageJson.version}`;

/** The product's name as people read it: e-mails, the authenticator app's entry, the studio's title. */
export const PRODUCT_NAME = "Builder";
