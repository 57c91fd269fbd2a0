import { useState } from "react";
import { Button, ErrorBox, SecretOnce } from "../ui/ui.tsx";
import { type App, useRotateSecret } from "./queries.ts";

/** The end-user secret's last characters, and "Rotate secret" that shows the new one once. */
export function AppSecret({ app, initialSecret }: { app: App; initialSecret: string | null }) {
  const [revealed, setRevealed] = useState(initialSecret);
  const rotate = useRotateSecret(app.id);
  return (
    <section className="card" aria-labelledby="secret-title">
      <h2 id="secret-title">End-user secret</h2>
      <p className="muted">
        Your server signs its users' tokens with this secret (HS256 JWTs with <code>sub</code> and{" "}
        <code>exp</code>), so the app knows which of your customers is talking. It ends in{" "}
        <code data-testid="secret-hint">{app.end_user_secret_hint}</code>.
      </p>
      {revealed ? (
        <SecretOnce
          message="Copy the end-user secret now and keep it on your server: it will not be shown again."
          secret={revealed}
          testId="end-user-secret"
          onDone={() => setRevealed(null)}
        />
      ) : null}
      <ErrorBox error={rotate.error} />
      <Button
        variant="secondary"
        isBusy={rotate.isPending}
        onClick={() => {
          if (
            !confirm("Rotate the end-user secret? Tokens signed with the current one stop working at once.")
          )
            return;
          rotate.mutate(undefined, { onSuccess: (rotated) => setRevealed(rotated.end_user_secret) });
        }}
      >
        Rotate secret
      </Button>
    </section>
  );
}
