import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { api } from "../api/client.ts";
import { useQueryString } from "../router.ts";
import { Button, Field, FormError, fieldErrors, Link } from "../ui/ui.tsx";

/** "Forgot your password?": e-mails a reset link (the answer is the same for any address). */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState("");
  const ask = useMutation({
    mutationFn: () => api("/api/auth/request-password-reset", { json: { email } }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    ask.mutate();
  };
  return (
    <div className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-label="Reset your password">
        <h1>Reset your password</h1>
        {ask.isSuccess ? (
          <p role="status">
            If {email} has an account, a link to choose a new password is on its way. It works once, within an
            hour.
          </p>
        ) : (
          <>
            <FormError error={ask.error} fields={["email"]} />
            <Field label="E-mail" error={fieldErrors(ask.error)?.fieldMessage("email")}>
              <input
                name="email"
                type="email"
                value={email}
                onChange={(e) => setEmail(e.target.value)}
                required
                autoComplete="email"
              />
            </Field>
            <Button type="submit" isBusy={ask.isPending}>
              Send the link
            </Button>
          </>
        )}
        <p className="muted">
          <Link to="/sign-in">Back to sign-in</Link>
        </p>
      </form>
    </div>
  );
}

/** Where the reset e-mail's link lands (`?token=…`, or `?error=INVALID_TOKEN` for a used or old link). */
export function ResetPasswordPage() {
  const query = new URLSearchParams(useQueryString());
  const token = query.get("token");
  const [password, setPassword] = useState("");
  const reset = useMutation({
    mutationFn: () => api("/api/auth/reset-password", { json: { token, newPassword: password } }),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    reset.mutate();
  };
  return (
    <div className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-label="Choose a new password">
        <h1>Choose a new password</h1>
        {!token || query.get("error") ? (
          <p className="field-error" role="alert">
            This link was already used or is more than an hour old.{" "}
            <Link to="/forgot-password">Ask for a new one</Link>.
          </p>
        ) : reset.isSuccess ? (
          <p role="status">
            Your password is changed and every session was signed out. <Link to="/sign-in">Sign in</Link>.
          </p>
        ) : (
          <>
            <FormError error={reset.error} fields={["newPassword"]} />
            <Field
              label="New password"
              hint="At least 8 characters."
              error={fieldErrors(reset.error)?.fieldMessage("newPassword")}
            >
              <input
                name="new-password"
                type="password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                required
                minLength={8}
                autoComplete="new-password"
              />
            </Field>
            <Button type="submit" isBusy={reset.isPending}>
              Set the password
            </Button>
          </>
        )}
      </form>
    </div>
  );
}
