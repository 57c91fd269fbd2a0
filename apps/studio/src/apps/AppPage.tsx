import { useState } from "react";
import { navigate } from "../router.ts";
import { Button, ErrorBox, Link, Loading, PageHeader, QueryError } from "../ui/ui.tsx";
import { Guarded } from "../workspaces/Guarded.tsx";
import { AppConversations } from "./AppConversations.tsx";
import { AppEmbed } from "./AppEmbed.tsx";
import { AppKeys } from "./AppKeys.tsx";
import { AppPreview } from "./AppPreview.tsx";
import { AppSecret } from "./AppSecret.tsx";
import { AppSettingsForm } from "./AppSettingsForm.tsx";
import { type App, useApp, useDeleteApp } from "./queries.ts";
import { takeSecret } from "./secret-handoff.ts";

/** One app: where it is reached, its settings, secret, keys, a live preview and its conversations. */
export function AppPage({ id }: { id: string }) {
  const app = useApp(id);
  // A just-created app's secret, handed over by the form that created it; shown once.
  const [createdSecret] = useState(() => takeSecret(id));
  const remove = useDeleteApp();

  return (
    <>
      <p className="breadcrumb">
        <Link to="/apps">← Apps</Link>
      </p>
      {app.isPending ? <Loading what="the app" /> : null}
      <QueryError query={app} />
      {app.data ? (
        <>
          <PageHeader
            title={app.data.title}
            actions={
              <Guarded>
                <Button
                  variant="danger"
                  isBusy={remove.isPending}
                  onClick={() => {
                    if (
                      !confirm(
                        `Delete the app “${app.data.title}”? Its web app, widget and keys stop working.`,
                      )
                    )
                      return;
                    remove.mutate(id, { onSuccess: () => navigate("/apps") });
                  }}
                >
                  Delete app
                </Button>
              </Guarded>
            }
          />
          <ErrorBox error={remove.error} />
          <Publishes app={app.data} />
          <div className="app-page">
            <div className="stack">
              <AppEmbed app={app.data} />
              <AppSecret app={app.data} initialSecret={createdSecret} />
              <AppKeys appId={id} />
              <AppPreview app={app.data} />
            </div>
            <div className="stack">
              <AppSettingsForm app={app.data} />
            </div>
          </div>
          {app.data.kind === "agent" ? (
            <AppConversations appId={id} />
          ) : (
            <p className="muted">
              A workflow app's runs are on the workflow's{" "}
              <Link to={`/workflows/${app.data.workflow_id}/runs`}>runs page</Link>.
            </p>
          )}
        </>
      ) : null}
    </>
  );
}

function Publishes({ app }: { app: App }) {
  const path = app.kind === "agent" ? `/agents/${app.agent_id}` : `/workflows/${app.workflow_id}`;
  return (
    <p className="muted">
      Serves the newest published version of its <Link to={path}>{app.kind}</Link> (its saved draft until the
      first publish) at <code>/a/{app.slug}</code>.
    </p>
  );
}
