/** The widget's script, served to any site. */
export const EMBED_SCRIPT_PATH = "/embed.js";
/** The web app's script, loaded by the pages under WEB_APP_PREFIX. */
export const WEB_APP_SCRIPT_PATH = "/webapp.js";
/** `/a/{slug}`: an app's hosted page. */
export const WEB_APP_PREFIX = "/a/";

/**
 * Whether a path belongs to the apps' pages and scripts rather than to the studio's single-page app,
 * whose catch-all must let it through to a 404 instead of answering the studio's index.html.
 *
 * @example isAppPagePath("/a/support") // true
 */
export function isAppPagePath(path: string): boolean {
  return path === EMBED_SCRIPT_PATH || path === WEB_APP_SCRIPT_PATH || path.startsWith(WEB_APP_PREFIX);
}
