import { CopyButton } from "../ui/JsonTree.tsx";
import type { App } from "./queries.ts";

/** Where end users reach the app: the web app's link, and the snippets that put it on a site. */
export function AppEmbed({ app }: { app: App }) {
  return (
    <section className="card" aria-labelledby="embed-title">
      <h2 id="embed-title">Share and embed</h2>
      <p>
        Web app:{" "}
        <a href={app.web_url} target="_blank" rel="noopener noreferrer" data-testid="web-url">
          {app.web_url}
        </a>{" "}
        <span className="muted">(opens in a new tab)</span>
      </p>
      <Snippet
        title="Chat widget"
        hint={
          app.kind === "agent"
            ? "Paste before </body> on a page of an allowed origin. Add data-user-token with a token your server signs to name the user."
            : "Paste before </body> on a page of an allowed origin."
        }
        code={app.embed.snippet}
        testId="script-snippet"
      />
      <Snippet
        title="Iframe"
        hint="The web app inside a page of an allowed origin."
        code={app.embed.iframe_snippet}
        testId="iframe-snippet"
      />
    </section>
  );
}

function Snippet({
  title,
  hint,
  code,
  testId,
}: {
  title: string;
  hint: string;
  code: string;
  testId: string;
}) {
  return (
    <div className="snippet">
      <div className="section-header">
        <h3>{title}</h3>
        <CopyButton text={code} label={`Copy the ${title.toLowerCase()} snippet`} />
      </div>
      <p className="field-hint">{hint}</p>
      <pre className="logs" data-testid={testId}>
        <code>{code}</code>
      </pre>
    </div>
  );
}
