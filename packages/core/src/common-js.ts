/**
 * The exports of a CommonJS package loaded with `import()`. Node hands a CommonJS module's exports
 * over both as named exports and as `default`, but a chunk split out of an ES module bundle
 * (esbuild's, in `npm run build`) carries them as `default` only: `(await import("undici")).Agent`
 * is undefined in the compiled services. Reading `default` first works in both. An ES module
 * package without a default export is returned as it is.
 *
 * @example const { Agent, fetch } = commonJsExports(await import("undici"));
 */
export function commonJsExports<Namespace extends object>(namespace: Namespace): Namespace {
  const exported = (namespace as { default?: unknown }).default;
  return typeof exported === "object" && exported !== null ? (exported as Namespace) : namespace;
}
