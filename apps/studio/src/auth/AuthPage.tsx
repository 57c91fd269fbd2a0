import { type FormEvent, useState } from "react";
import { navigate } from "../router.ts";
import { Button, Field, FormError, fieldErrors, Link } from "../ui/ui.tsx";
import { useSignIn, useSignUp } from "./session.ts";

/** Sign-in and sign-up share one form; `mode` picks which. */
export function AuthPage({ mode }: { mode: "sign-in" | "sign-up" }) {
  const signIn = useSignIn();
  const signUp = useSignUp();
  const mutation = mode === "sign-in" ? signIn : signUp;
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [name, setName] = useState("");
  const error = fieldErrors(mutation.error);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const onSuccess = () => navigate("/agents", { replace: true });
    if (mode === "sign-in") signIn.mutate({ email, password }, { onSuccess });
    else signUp.mutate({ email, password, name }, { onSuccess });
  };

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
        <p className="muted">
          {mode === "sign-in" ? "New here? " : "Have an account? "}
          <Link to={mode === "sign-in" ? "/sign-up" : "/sign-in"}>
            {mode === "sign-in" ? "Create an account" : "Sign in"}
          </Link>
        </p>
      </form>
    </div>
  );
}
