import { useEffect } from "react";
import { ApiError } from "../api/client.ts";
import { navigate } from "../router.ts";
import { ErrorBox } from "../ui/ui.tsx";
import { useCurrentWorkspace, useSwitchWorkspace, useWorkspaces } from "./queries.ts";

/** The sidebar's choice of workspace: switching makes it the session's active one and reloads every screen's data. */
export function WorkspaceSwitcher() {
  const workspaces = useWorkspaces();
  const current = useCurrentWorkspace();
  const switchTo = useSwitchWorkspace();
  const list = workspaces.data?.data ?? [];
  const currentId = current.data?.id ?? list.find((workspace) => workspace.is_current)?.id ?? "";
  // Removed from the session's workspace (or it was deleted): move to one still theirs.
  const isGone = current.error instanceof ApiError && current.error.code === "workspace_not_found";
  const fallback = list.find((workspace) => workspace.is_personal)?.id ?? list[0]?.id;
  const { mutate, isPending } = switchTo;
  useEffect(() => {
    if (isGone && fallback && !isPending) mutate(fallback);
  }, [isGone, fallback, isPending, mutate]);
  return (
    <div className="workspace-switcher">
      <label>
        <span className="field-label">Workspace</span>
        <select
          name="workspace"
          value={currentId}
          disabled={switchTo.isPending || list.length === 0}
          onChange={(e) =>
            switchTo.mutate(e.target.value, {
              // Another workspace's page of an agent or a run would be a 404: start at its lists.
              onSuccess: () => navigate("/agents"),
            })
          }
        >
          {list.length === 0 && current.data ? (
            <option value={current.data.id}>{current.data.name}</option>
          ) : null}
          {list.map((workspace) => (
            <option key={workspace.id} value={workspace.id}>
              {workspace.name} ({workspace.role})
            </option>
          ))}
        </select>
      </label>
      {current.data ? (
        <span className="muted" data-testid="current-role">
          You are{" "}
          {current.data.role === "owner" || current.data.role === "admin" || current.data.role === "editor"
            ? "an"
            : "a"}{" "}
          {current.data.role}
        </span>
      ) : null}
      <ErrorBox error={switchTo.error ?? current.error} />
    </div>
  );
}
