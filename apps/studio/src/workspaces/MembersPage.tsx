import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api } from "../api/client.ts";
import type { Invitation, Workspace } from "../api/schema.gen.ts";
import { useDelete } from "../api/use-delete.ts";
import { useSession } from "../auth/session.ts";
import { DeleteButton } from "../ui/row-actions.tsx";
import {
  Button,
  EmptyState,
  ErrorBox,
  Field,
  Loading,
  PageHeader,
  QueryError,
  StatusBadge,
} from "../ui/ui.tsx";
import {
  useCreateWorkspace,
  useCurrentWorkspace,
  useHasRole,
  useInvitations,
  useMembers,
  useSwitchWorkspace,
  workspacesKey,
} from "./queries.ts";

const ASSIGNABLE = ["admin", "editor", "viewer"] as const;

/** The current workspace's people: members and their roles, invitations, ownership; and new workspaces. */
export function MembersPage() {
  const current = useCurrentWorkspace();
  const isAdmin = useHasRole("admin");
  const isOwner = useHasRole("owner");
  return (
    <>
      <PageHeader title={current.data ? `Members of ${current.data.name}` : "Members"} />
      <QueryError query={current} />
      <Members isAdmin={isAdmin} isOwner={isOwner} />
      {isAdmin ? <Invite /> : null}
      {isAdmin ? <Invitations /> : null}
      <NewWorkspace />
    </>
  );
}

function Members({ isAdmin, isOwner }: { isAdmin: boolean; isOwner: boolean }) {
  const client = useQueryClient();
  const members = useMembers();
  const session = useSession();
  const myId = session.data?.user.id;
  const changeRole = useMutation({
    mutationFn: ({ userId, role }: { userId: string; role: string }) =>
      api(`/api/members/${userId}`, { method: "PATCH", json: { role } }),
    onSuccess: () => client.invalidateQueries({ queryKey: ["members"] }),
  });
  const remove = useDelete("/api/members", ["members"]);
  const transfer = useMutation({
    mutationFn: (userId: string) =>
      api<Workspace>("/api/workspaces/current/transfer", { json: { user_id: userId } }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ["members"] });
      void client.invalidateQueries({ queryKey: workspacesKey });
    },
  });
  return (
    <section className="card" aria-labelledby="members-title">
      <h2 id="members-title">Members</h2>
      <QueryError query={members} />
      <ErrorBox error={changeRole.error ?? remove.error ?? transfer.error} />
      {members.isPending ? <Loading what="members" /> : null}
      {members.data ? (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>E-mail</th>
              <th>Role</th>
              {isAdmin ? <th /> : null}
            </tr>
          </thead>
          <tbody>
            {members.data.data.map((member) => (
              <tr key={member.user_id} data-testid="member-row">
                <td>
                  {member.name}
                  {member.user_id === myId ? <span className="muted"> (you)</span> : null}
                </td>
                <td>{member.email}</td>
                <td>
                  {isAdmin && member.role !== "owner" ? (
                    <select
                      aria-label={`Role of ${member.email}`}
                      value={member.role}
                      onChange={(e) => changeRole.mutate({ userId: member.user_id, role: e.target.value })}
                    >
                      {ASSIGNABLE.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <StatusBadge tone={member.role === "owner" ? "ok" : "neutral"}>{member.role}</StatusBadge>
                  )}
                </td>
                {isAdmin ? (
                  <td className="row-actions">
                    {member.role !== "owner" ? (
                      <DeleteButton
                        needs="admin"
                        remove={remove}
                        id={member.user_id}
                        question={`Remove ${member.email} from the workspace? They lose access at once.`}
                        label={`Remove ${member.email}`}
                      >
                        Remove
                      </DeleteButton>
                    ) : null}
                    {isOwner && member.role !== "owner" ? (
                      <Button
                        variant="secondary"
                        isBusy={transfer.isPending && transfer.variables === member.user_id}
                        onClick={() => {
                          if (confirm(`Make ${member.email} the owner? You stay on as an admin.`))
                            transfer.mutate(member.user_id);
                        }}
                      >
                        Make owner
                      </Button>
                    ) : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function Invite() {
  const client = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<(typeof ASSIGNABLE)[number]>("editor");
  const invite = useMutation({
    mutationFn: () => api<Invitation>("/api/invitations", { json: { email, role } }),
    onSuccess: () => {
      setEmail("");
      void client.invalidateQueries({ queryKey: ["invitations"] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate();
  };
  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite someone</h2>
      <p className="muted">They get an e-mail with a link, valid for 7 days.</p>
      <ErrorBox error={invite.error} />
      {invite.isSuccess ? <p role="status">Invitation sent to {invite.data.email}.</p> : null}
      <form className="row" onSubmit={submit} aria-label="Invite someone">
        <Field label="E-mail">
          <input
            name="invite-email"
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            required
          />
        </Field>
        <Field label="Role">
          <select name="invite-role" value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
            {ASSIGNABLE.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </Field>
        <div style={{ alignSelf: "center", flex: 0 }}>
          <Button type="submit" isBusy={invite.isPending}>
            Invite
          </Button>
        </div>
      </form>
    </section>
  );
}

function Invitations() {
  const invitations = useInvitations(true);
  const withdraw = useDelete("/api/invitations", ["invitations"]);
  const pending = invitations.data?.data.filter((invitation) => invitation.status === "pending") ?? [];
  return (
    <section className="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Pending invitations</h2>
      <QueryError query={invitations} />
      <ErrorBox error={withdraw.error} />
      {invitations.isPending ? <Loading what="invitations" /> : null}
      {invitations.data && pending.length === 0 ? <EmptyState title="No pending invitations" /> : null}
      {pending.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th>E-mail</th>
              <th>Role</th>
              <th>Expires</th>
              <th>Link</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {pending.map((invitation) => (
              <tr key={invitation.id} data-testid="invitation-row">
                <td>{invitation.email}</td>
                <td>{invitation.role}</td>
                <td>{new Date(invitation.expires_at).toLocaleDateString()}</td>
                <td>
                  <input
                    readOnly
                    aria-label={`Link of the invitation of ${invitation.email}`}
                    value={invitation.url}
                  />
                </td>
                <td>
                  <DeleteButton
                    needs="admin"
                    remove={withdraw}
                    id={invitation.id}
                    question={`Withdraw the invitation of ${invitation.email}? Its link stops working.`}
                    label={`Withdraw the invitation of ${invitation.email}`}
                  >
                    Withdraw
                  </DeleteButton>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}

function NewWorkspace() {
  const [name, setName] = useState("");
  const create = useCreateWorkspace();
  const switchTo = useSwitchWorkspace();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name, { onSuccess: (workspace) => switchTo.mutate(workspace.id) });
  };
  return (
    <section className="card" aria-labelledby="new-workspace-title">
      <h2 id="new-workspace-title">New workspace</h2>
      <p className="muted">
        A separate space for a team or a project; you are its owner. It starts without credits.
      </p>
      <ErrorBox error={create.error ?? switchTo.error} />
      <form className="row" onSubmit={submit} aria-label="New workspace">
        <Field label="Workspace name">
          <input
            name="workspace-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={100}
          />
        </Field>
        <div style={{ alignSelf: "center", flex: 0 }}>
          <Button type="submit" isBusy={create.isPending || switchTo.isPending}>
            Create
          </Button>
        </div>
      </form>
    </section>
  );
}
