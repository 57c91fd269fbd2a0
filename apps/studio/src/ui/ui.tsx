import { type ButtonHTMLAttributes, cloneElement, type ReactElement, type ReactNode, useId } from "react";
import { ApiError } from "../api/client.ts";

export function Button({
  variant = "primary",
  isBusy = false,
  children,
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: "primary" | "secondary" | "danger";
  isBusy?: boolean;
}) {
  return (
    <button type="button" className={`btn btn-${variant}`} disabled={isBusy || rest.disabled} {...rest}>
      {isBusy ? <Spinner /> : null}
      {children}
    </button>
  );
}

/** A labelled control; the hint and error are announced with it but are not part of its name. */
export function Field({
  label,
  error,
  hint,
  children,
}: {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ReactElement<{ "aria-describedby"?: string; "aria-invalid"?: boolean }>;
}) {
  const id = useId();
  const note = error ?? hint;
  return (
    <div className="field">
      {/* biome-ignore lint/a11y/noLabelWithoutControl: the control is passed in as children */}
      <label>
        <span className="field-label">{label}</span>
        {note
          ? cloneElement(children, { "aria-describedby": `${id}-note`, "aria-invalid": Boolean(error) })
          : children}
      </label>
      {error ? (
        <span id={`${id}-note`} className="field-error" role="alert">
          {error}
        </span>
      ) : hint ? (
        <span id={`${id}-note`} className="field-hint">
          {hint}
        </span>
      ) : null}
    </div>
  );
}

export function Spinner() {
  return <span className="spinner" aria-hidden="true" />;
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" aria-busy="true">
      <Spinner /> Loading {what}…
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <h3>{title}</h3>
      {children}
    </div>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const message = error instanceof ApiError || error instanceof Error ? error.message : String(error);
  return (
    <div className="error-box" role="alert">
      {message}
    </div>
  );
}

export function PageHeader({ title, actions }: { title: string; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <h1>{title}</h1>
      <div className="page-actions">{actions}</div>
    </header>
  );
}
