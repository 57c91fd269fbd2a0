import { navigate } from "../router.ts";
import { Button, ErrorBox, Link } from "../ui/ui.tsx";
import { type AppTarget, useAppsOf, useCreateApp } from "./queries.ts";
import { handOffSecret } from "./secret-handoff.ts";

/** "Open app" when an app serves this agent or workflow, "Create app" when none does yet. */
export function AppShortcut({ target }: { target: AppTarget }) {
  const apps = useAppsOf(target);
  const create = useCreateApp();
  if (apps.error) return <ErrorBox error={apps.error} onRetry={() => apps.refetch()} />;
  if (!apps.data) return null;
  const [first] = apps.data;
  if (first) {
    return (
      <Link className="btn btn-secondary" to={`/apps/${first.id}`}>
        Open app{apps.data.length > 1 ? ` (${first.title}, 1 of ${apps.data.length})` : ""}
      </Link>
    );
  }
  return (
    <>
      <Button
        variant="secondary"
        isBusy={create.isPending}
        onClick={() =>
          create.mutate(target.kind === "agent" ? { agent_id: target.id } : { workflow_id: target.id }, {
            onSuccess: (created) => {
              handOffSecret(created.id, created.end_user_secret);
              navigate(`/apps/${created.id}`);
            },
          })
        }
      >
        Create app
      </Button>
      <ErrorBox error={create.error} />
    </>
  );
}
