import { useEffect, useRef, useState } from "react";
import { Button } from "../ui/ui.tsx";
import type { App } from "./queries.ts";

type Loaded = { state: "loading" } | { state: "shown" } | { state: "unavailable"; why: string };

/**
 * The widget as a site shows it: the app's `embed.js` loaded into this page with `data-app`,
 * opened at once. Shown on request, since the widget floats over the studio.
 */
export function AppPreview({ app }: { app: App }) {
  const [isOn, setOn] = useState(false);
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  return (
    <section className="card" aria-labelledby="preview-title">
      <div className="section-header">
        <h2 id="preview-title">Live preview</h2>
        <Button
          variant="secondary"
          aria-pressed={isOn}
          onClick={() => {
            setLoaded({ state: "loading" });
            setOn(!isOn);
          }}
        >
          {isOn ? "Hide preview" : "Show preview"}
        </Button>
      </div>
      <p className="muted">
        The chat widget as your site will show it, running the published version. It opens over this page.
      </p>
      {isOn && loaded.state === "loading" ? <p aria-busy="true">Loading the widget…</p> : null}
      {isOn && loaded.state === "unavailable" ? (
        <p className="error-box" role="alert" data-testid="preview-unavailable">
          Preview unavailable: {loaded.why}. The web app link and snippets above work once the server serves
          the widget.
        </p>
      ) : null}
      {/* A new key (the app saved with other settings) loads the widget again with them. */}
      {isOn ? <WidgetHost key={`${app.slug}:${app.updated_at}`} app={app} onLoaded={setLoaded} /> : null}
    </section>
  );
}

/**
 * Loads the widget's script into its box; on unmount takes away the script and whatever the
 * widget added to the page.
 */
function WidgetHost({ app, onLoaded }: { app: App; onLoaded: (loaded: Loaded) => void }) {
  const box = useRef<HTMLDivElement>(null);
  const scriptUrl = app.embed.script_url;
  const slug = app.slug;
  useEffect(() => {
    const host = box.current;
    if (!host) return;
    const controller = new AbortController();
    const before = new Set(Array.from(document.body.children));
    const fail = (why: string) => {
      if (!controller.signal.aborted) onLoaded({ state: "unavailable", why });
    };
    let script: HTMLScriptElement | null = null;
    onLoaded({ state: "loading" });
    // Asked first: a server without the widget answers the studio's HTML page for /embed.js,
    // which a script tag would run and fail on with nothing said. A script on another origin (the
    // dev server's studio, PUBLIC_URL elsewhere) cannot be read without CORS: its tag's error says it.
    const isSameOrigin = new URL(scriptUrl, window.location.href).origin === window.location.origin;
    const checked = isSameOrigin
      ? fetch(scriptUrl, { signal: controller.signal }).then((response) => {
          if (!response.ok) return `the widget's script answered ${response.status}`;
          if (!(response.headers.get("content-type") ?? "").includes("javascript"))
            return "this server does not serve the widget's script yet";
          return null;
        })
      : Promise.resolve(null);
    checked
      .then((problem) => {
        if (controller.signal.aborted) return;
        if (problem) return fail(problem);
        script = document.createElement("script");
        script.src = scriptUrl;
        script.async = true;
        script.dataset.app = slug;
        script.dataset.open = "true";
        script.onload = () => onLoaded({ state: "shown" });
        script.onerror = () => fail("the widget's script did not load");
        host.append(script);
      })
      .catch(() => fail("the widget's script could not be reached"));
    return () => {
      controller.abort();
      script?.remove();
      for (const child of Array.from(document.body.children)) {
        if (!before.has(child) && child.tagName !== "SCRIPT") child.remove();
      }
    };
  }, [scriptUrl, slug, onLoaded]);
  return <div ref={box} className="widget-preview" data-testid="widget-preview" />;
}
