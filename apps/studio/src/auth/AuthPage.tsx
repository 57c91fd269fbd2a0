import { type FormEvent, useState } from "react";
import { navigate, useQueryString } from "../router.ts";
import { Button, Field, FormError, fieldErrors, Link } from "../ui/ui.tsx";
import { useSignIn, useSignUp, useVerifySecondFactor } from "./session.ts";

/** Where to go after signing in: `?next=` when it is a path of the studio (an invitation), else the agents. */
function nextPath(queryString: string): string {
  const next = new URLSearchParams(queryString).get("next");
  return next?.startsWith("/") && !next.startsWith("//") ? next : "/agents";
}

/** Sign-in and sign-up share one form; `mode` picks which. */
export function AuthPage({ mode }: { mode: "sign-in" | "sign-up" }) {
  const signIn = useSignIn();
  const signUp = useSignUp();
  const mutation = mode === "sign-in" ? signIn : signUp;
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  const [isSecondStep, setSecondStep] = useState(false);
  const [isCheckEmail, setCheckEmail] = useState(false);
  const error = fieldErrors(mutation.error);
  const next = nextPath(useQueryString());
  const querySuffix = next === "/agents" ? "" : `?next=${encodeURIComponent(next)}`;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const done = () => navigate(next, { replace: true });
    if (mode === "sign-in")
      signIn.mutate(
        { email, password },
        { onSuccess: (result) => ("twoFactorRedirect" in result ? setSecondStep(true) : done()) },
      );
    else
      signUp.mutate(
        { email, password, name },
        // REQUIRE_EMAIL_VERIFICATION: no session until the address is confirmed.
        { onSuccess: (result) => (result.token === null ? setCheckEmail(true) : done()) },
      );
  };

  if (isSecondStep) return <SecondFactor onDone={() => navigate(next, { replace: true })} />;
  if (isCheckEmail)
    return (
      <div className="auth-page">
        <div className="card auth-card" role="status">
          <h1>Check your e-mail</h1>
          <p>We sent a link to {email}. Open it to confirm your address; then sign in.</p>
          <Link to={`/sign-in${querySuffix}`}>Sign in</Link>
        </div>
      </div>
    );

  return (
    <div className="auth-page">
      <form
        className="card auth-card"
        onSubmit={submit}
        aria-label={mode === "sign-in" ? "Sign in" : "Sign up"}
      >
        <h1>{mode === "sign-in" ? "Sign in" : "Create your account"}</h1>
        <p className="muted">Build agents and workflows on any AI provider.</p>
        <FormError error={mutation.error} fields={["name", "email", "password"]} />
        {mode === "sign-up" ? (
          <Field label="Name" error={error?.fieldMessage("name")}>
            <input
              name="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              autoComplete="name"
            />
          </Field>
        ) : null}
        <Field label="E-mail" error={error?.fieldMessage("email")}>
          <input
            name="email"
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            required
            autoComplete="email"
          />
        </Field>
        <Field
          label="Password"
          error={error?.fieldMessage("password")}
          {...(mode === "sign-up" ? { hint: "At least 8 characters." } : {})}
        >
          <input
            name="password"
            type="password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            required
            minLength={mode === "sign-up" ? 8 : 1}
            autoComplete={mode === "sign-in" ? "current-password" : "new-password"}
          />
        </Field>
        <Button type="submit" isBusy={mutation.isPending}>
          {mode === "sign-in" ? "Sign in" : "Sign up"}
        </Button>
        {mode === "sign-in" ? (
          <p className="muted">
            <Link to="/forgot-password">Forgot your password?</Link>
          </p>
        ) : null}
        <p className="muted">
          {mode === "sign-in" ? "New here? " : "Have an account? "}
          <Link to={`${mode === "sign-in" ? "/sign-up" : "/sign-in"}${querySuffix}`}>
            {mode === "sign-in" ? "Create an account" : "Sign in"}
          </Link>
        </p>
      </form>
    </div>
  );
}

/** The code of the authenticator app (or a backup code) after a sign-in with two-factor on. */
function SecondFactor({ onDone }: { onDone: () => void }) {
  const verify = useVerifySecondFactor();
  const [code, setCode] = useState("");
  const [isBackupCode, setBackupCode] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    verify.mutate({ code, isBackupCode }, { onSuccess: onDone });
  };
  return (
    <div className="auth-page">
      <form className="card auth-card" onSubmit={submit} aria-label="Two-factor code">
        <h1>Two-factor code</h1>
        <FormError error={verify.error} fields={["code"]} />
        <Field label={isBackupCode ? "Backup code" : "Code from your authenticator app"}>
          <input
            name="code"
            value={code}
            onChange={(e) => setCode(e.target.value)}
            required
            autoComplete="one-time-code"
            inputMode={isBackupCode ? "text" : "numeric"}
          />
        </Field>
        <Button type="submit" isBusy={verify.isPending}>
          Verify
        </Button>
        <button type="button" className="btn btn-secondary" onClick={() => setBackupCode(!isBackupCode)}>
          {isBackupCode ? "Use the app's code" : "Use a backup code"}
        </button>
      </form>
    </div>
  );
}
