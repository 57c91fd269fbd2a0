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

/**
 * The hosted checkout's shell: a centred card in the look people know from hosted checkouts, light
 * and dark by the visitor's setting, everything inline (the CSP allows no other source).
 */
export function checkoutPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<style>
:root{--bg:#f4f5f7;--panel:#fff;--text:#16181d;--muted:#5f6472;--border:#dfe2e8;--accent:#4f46e5;--ok:#1f7a35;--danger:#b42318;--busy:#9a5b00;--radius:14px}
@media (prefers-color-scheme:dark){:root{--bg:#0f1115;--panel:#1a1d24;--text:#eceef3;--muted:#a0a5b3;--border:#2d313b;--accent:#8b93ff;--ok:#6fcf86;--danger:#ff8a80;--busy:#ffc266}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;display:flex;justify-content:center;padding:2rem 1rem}
.checkout{width:100%;max-width:26rem}
.merchant{display:flex;align-items:center;gap:.75rem;margin-bottom:1rem}
.merchant-mark{width:2.5rem;height:2.5rem;border-radius:50%;background:var(--accent);color:#fff;display:grid;place-items:center;font-weight:700}
.test-badge{margin-left:auto;font-size:.75rem;font-weight:600;text-transform:uppercase;letter-spacing:.04em;color:var(--busy);border:1px solid currentColor;border-radius:999px;padding:.1rem .6rem}
.card{background:var(--panel);border:1px solid var(--border);border-radius:var(--radius);padding:1.5rem;box-shadow:0 8px 30px rgba(0,0,0,.06)}
h1{font-size:1rem;font-weight:600;margin:0 0 .25rem;color:var(--muted)}
.amount{font-size:2.2rem;font-weight:700;margin:0 0 1rem;letter-spacing:-.01em}
.currency{font-size:1rem;font-weight:600;color:var(--muted);margin-right:.2rem}
.details{margin:0 0 1rem;border-top:1px solid var(--border)}
.details div{display:flex;justify-content:space-between;gap:1rem;padding:.55rem 0;border-bottom:1px solid var(--border)}
dt{color:var(--muted)}dd{margin:0;text-align:right;overflow-wrap:anywhere}
code{font-size:.85rem}
.status{display:inline-block;font-weight:600;font-size:.85rem;border:1px solid currentColor;border-radius:999px;padding:0 .6rem}
.status-ok,.state-ok{color:var(--ok)}.status-danger,.state-danger{color:var(--danger)}.status-busy,.state-busy{color:var(--busy)}.status-neutral,.state-neutral{color:var(--muted)}
.state-note{font-weight:600;margin:0 0 1rem}
.instructions{text-align:center}.instructions img{border-radius:8px;background:#fff;padding:8px;max-width:100%;height:auto}
.simulate{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;border-top:1px dashed var(--border);padding-top:1rem;margin-top:1rem}
.simulate p{width:100%;margin:0}
form.inline{display:inline}
button{font:inherit;cursor:pointer;border-radius:10px;padding:.6rem 1rem;border:1px solid var(--border);background:var(--panel);color:var(--text)}
form.inline:first-of-type button{background:var(--accent);border-color:var(--accent);color:#fff;font-weight:600}
button:focus-visible,a:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
a{color:var(--accent)}
.return{margin:1rem 0 0;text-align:center}
.muted{color:var(--muted)}.small{font-size:.8rem}
.footer{text-align:center;margin-top:1rem}
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
