import { useQueryClient } from "@tanstack/react-query";
import { lazy, type ReactNode, Suspense, useEffect } from "react";
import { AgentChat } from "./agents/AgentChat.tsx";
import { AgentEditor } from "./agents/AgentEditor.tsx";
import { AgentsPage } from "./agents/AgentsPage.tsx";
import { AuthPage } from "./auth/AuthPage.tsx";
import { useSession } from "./auth/session.ts";
import { ConnectionBanner } from "./layout/ConnectionBanner.tsx";
import { Shell } from "./layout/Shell.tsx";
import { match, navigate, usePath } from "./router.ts";
import { PageBoundary } from "./ui/PageBoundary.tsx";
import { Loading, QueryError } from "./ui/ui.tsx";
import { workflowQuery } from "./workflows/queries.ts";
import { WorkflowsPage } from "./workflows/WorkflowsPage.tsx";

// The editor (React Flow) is the heaviest screen: loaded only when opened. The other screens
// beyond the first are split the same way, so signing in downloads only what the first page needs.
const WorkflowEditor = lazy(() =>
  import("./workflows/WorkflowEditor.tsx").then((m) => ({ default: m.WorkflowEditor })),
);
const RunsPage = lazy(() => import("./workflows/RunsPage.tsx").then((m) => ({ default: m.RunsPage })));
const ApprovalsPage = lazy(() =>
  import("./approvals/ApprovalsPage.tsx").then((m) => ({ default: m.ApprovalsPage })),
);
const KnowledgePage = lazy(() =>
  import("./knowledge/KnowledgePage.tsx").then((m) => ({ default: m.KnowledgePage })),
);
const KnowledgeBasePage = lazy(() =>
  import("./knowledge/KnowledgeBasePage.tsx").then((m) => ({ default: m.KnowledgeBasePage })),
);
const GenerationPage = lazy(() =>
  import("./generation/GenerationPage.tsx").then((m) => ({ default: m.GenerationPage })),
);
const BillingPage = lazy(() => import("./billing/BillingPage.tsx").then((m) => ({ default: m.BillingPage })));
const UsagePage = lazy(() => import("./usage/UsagePage.tsx").then((m) => ({ default: m.UsagePage })));
const AppsPage = lazy(() => import("./apps/AppsPage.tsx").then((m) => ({ default: m.AppsPage })));
const AppPage = lazy(() => import("./apps/AppPage.tsx").then((m) => ({ default: m.AppPage })));
const LogsPage = lazy(() => import("./logs/LogsPage.tsx").then((m) => ({ default: m.LogsPage })));
const SettingsPage = lazy(() =>
  import("./settings/SettingsPage.tsx").then((m) => ({ default: m.SettingsPage })),
);

const PUBLIC_PATHS = ["/sign-in", "/sign-up"];

export function App() {
  const path = usePath();
  const session = useSession();
  const client = useQueryClient();
  const workflowId = match("/workflows/:id", path)?.id;
  // The editor's code and its workflow load side by side rather than one after the other.
  useEffect(() => {
    if (workflowId && session.data) void client.prefetchQuery(workflowQuery(workflowId));
  }, [client, workflowId, session.data]);

  if (session.isPending) return <Loading what="your session" />;
  if (session.error) return <QueryError query={session} />;
  const isSignedIn = Boolean(session.data);

  if (!isSignedIn) {
    if (!PUBLIC_PATHS.includes(path)) {
      queueMicrotask(() => navigate("/sign-in", { replace: true }));
      return null;
    }
    return (
      <>
        <ConnectionBanner />
        <AuthPage mode={path === "/sign-up" ? "sign-up" : "sign-in"} />
      </>
    );
  }
  if (PUBLIC_PATHS.includes(path) || path === "/") {
    queueMicrotask(() => navigate("/agents", { replace: true }));
    return null;
  }
  return (
    <>
      <ConnectionBanner />
      <Shell>
        <PageBoundary key={path}>{route(path)}</PageBoundary>
      </Shell>
    </>
  );
}

function route(path: string) {
  if (path === "/agents") return <AgentsPage />;
  if (path === "/agents/new") return <AgentEditor />;
  const agent = match("/agents/:id", path);
  if (agent?.id) {
    return (
      <div className="agent-page">
        <div>
          <AgentEditor key={agent.id} id={agent.id} />
        </div>
        <AgentChat key={`chat-${agent.id}`} agentId={agent.id} />
      </div>
    );
  }
  if (path === "/workflows") return <WorkflowsPage />;
  const workflowRuns = match("/workflows/:id/runs", path);
  if (workflowRuns?.id)
    return lazyPage(<RunsPage key={workflowRuns.id} workflowId={workflowRuns.id} />, "runs");
  const workflow = match("/workflows/:id", path);
  if (workflow?.id) return lazyPage(<WorkflowEditor key={workflow.id} id={workflow.id} />, "the editor");
  if (path === "/approvals") return lazyPage(<ApprovalsPage />, "approvals");
  if (path === "/apps") return lazyPage(<AppsPage />, "apps");
  const app = match("/apps/:id", path);
  if (app?.id) return lazyPage(<AppPage key={app.id} id={app.id} />, "the app");
  if (path === "/knowledge") return lazyPage(<KnowledgePage />, "knowledge bases");
  const base = match("/knowledge/:id", path);
  if (base?.id) return lazyPage(<KnowledgeBasePage key={base.id} id={base.id} />, "the knowledge base");
  if (path === "/generate") return lazyPage(<GenerationPage />, "generation");
  if (path === "/billing") return lazyPage(<BillingPage />, "billing");
  if (path === "/logs") return lazyPage(<LogsPage />, "logs");
  if (path === "/usage") return lazyPage(<UsagePage />, "usage");
  if (path === "/settings") return lazyPage(<SettingsPage />, "settings");
  return (
    <div className="empty">
      <h3>Nothing here</h3>
      <p>This page does not exist.</p>
    </div>
  );
}

function lazyPage(page: ReactNode, what: string) {
  return <Suspense fallback={<Loading what={what} />}>{page}</Suspense>;
}
