/**
 * Escapes text for HTML bodies and attribute values.
 *
 * @example `<td>${escapeHtml(name)}</td>`
 */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** A minimal page shell: no scripts, so pages work without a build step and under a strict CSP. */
export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:.4rem;text-align:left;vertical-align:top}
.muted{color:#666}.badge{padding:.1rem .4rem;border-radius:.3rem;background:#eee}.failed{background:#fdd}.delivered{background:#dfd}
.retrying{background:#ffd}form.inline{display:inline}button{cursor:pointer}pre{white-space:pre-wrap;word-break:break-all;background:#f6f6f6;padding:.5rem}
.amount{font-size:2rem;font-weight:600}nav a{margin-right:1rem}
</style></head><body>${body}</body></html>`;
}

/** Headers for server-rendered pages: no framing (clickjacking), no inline scripts, no referrer leaks. */
export const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};
