import { useMutation } from "@tanstack/react-query";
import { api } from "../api/client.ts";
import type { Workspace } from "../api/schema.gen.ts";
import { useSession } from "../auth/session.ts";
import { navigate } from "../router.ts";
import { Button, ErrorBox, Link, Loading, QueryError } from "../ui/ui.tsx";
import { useReceivedInvitation, useSwitchWorkspace } from "./queries.ts";

/**
 * The page behind an invitation e-mail's link. Signed out, it asks to sign in or sign up with the
 * invited address and comes back here; signed in, it shows the workspace and the role and accepts.
 */
export function InvitationPage({ id }: { id: string }) {
  const session = useSession();
  const back = `?next=${encodeURIComponent(`/invitations/${id}`)}`;
  if (!session.data) {
    return (
      <div className="auth-page">
        <div className="card auth-card">
          <h1>You are invited</h1>
          <p>Sign in, or create an account with the address the invitation was sent to, to accept it.</p>
          <p>
            <Link to={`/sign-in${back}`}>Sign in</Link> ·{" "}
            <Link to={`/sign-up${back}`}>Create an account</Link>
          </p>
        </div>
      </div>
    );
  }
  return <SignedInInvitation id={id} />;
}

function SignedInInvitation({ id }: { id: string }) {
  const invitation = useReceivedInvitation(id);
  const switchTo = useSwitchWorkspace();
  const accept = useMutation({
    mutationFn: () => api<Workspace>(`/api/invitations/${encodeURIComponent(id)}/accept`, { method: "POST" }),
    onSuccess: (workspace) =>
      switchTo.mutate(workspace.id, { onSuccess: () => navigate("/agents", { replace: true }) }),
  });
  if (invitation.isPending) return <Loading what="the invitation" />;
  if (invitation.error) return <QueryError query={invitation} />;
  const found = invitation.data;
  return (
    <section className="card auth-card" aria-labelledby="invitation-title">
      <h1 id="invitation-title">Join {found.workspace.name}</h1>
      <p>
        {found.invited_by_name ?? "Someone"} invited {found.email} to the workspace “{found.workspace.name}”
        as <strong>{found.role}</strong>.
      </p>
      {found.status !== "pending" ? (
        <p className="field-error" role="alert">
          This invitation has {found.status === "accepted" ? "already been used" : "expired"}. Ask for a new
          one.
        </p>
      ) : !found.is_for_you ? (
        <p className="field-error" role="alert">
          It was sent to {found.email}: sign in with that address to accept it.
        </p>
      ) : (
        <Button isBusy={accept.isPending || switchTo.isPending} onClick={() => accept.mutate()}>
          Accept and open the workspace
        </Button>
      )}
      <ErrorBox error={accept.error ?? switchTo.error} />
    </section>
  );
}
