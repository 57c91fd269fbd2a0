import type { AppRow } from "./schema.ts";

/**
 * Whether a browser on `origin` may call the app: the builder's own origin (the web app) always,
 * others only when listed in `allowed_origins`. A request without an Origin header comes from a
 * server, not a page, and its credentials decide alone.
 *
 * @example isOriginAllowed(app, "https://shop.example.com", "https://builder.example.com") // true when listed
 */
export function isOriginAllowed(
  app: Pick<AppRow, "allowedOrigins">,
  origin: string | undefined,
  publicUrl: string,
): boolean {
  if (origin === undefined) return true;
  if (origin === new URL(publicUrl).origin) return true;
  return app.allowedOrigins.includes(origin.toLowerCase());
}
