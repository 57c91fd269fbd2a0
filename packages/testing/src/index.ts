export { freePort } from "./ports.ts";
