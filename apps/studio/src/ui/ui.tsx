import {
  type AnchorHTMLAttributes,
  type ButtonHTMLAttributes,
  cloneElement,
  type ReactElement,
  type ReactNode,
  useId,
  useState,
} from "react";
import { ApiError } from "../api/client.ts";
import { navigate } from "../router.ts";

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

/** A table column: its heading, or `{ label, className }`; `ACTIONS` is a column of buttons whose heading only screen readers hear. */
export type Column = string | { label: string; className?: string; isHidden?: boolean };
export const ACTIONS: Column = { label: "Actions", isHidden: true };

/**
 * A scrollable data table with its headings; the rows are the children.
 *
 * @example <DataTable label="Orders" columns={["Date", "Credits", ACTIONS]}>{rows}</DataTable>
 */
export function DataTable({
  label,
  columns,
  children,
}: {
  label: string;
  columns: Column[];
  children: ReactNode;
}) {
  return (
    <div className="table-scroll">
      <table aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => {
              const {
                label: heading,
                className,
                isHidden,
              } = typeof column === "string"
                ? { label: column, className: undefined, isHidden: false }
                : column;
              return (
                <th key={heading} className={className}>
                  {isHidden ? <span className="visually-hidden">{heading}</span> : heading}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
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

/** A link to a studio path: a real `<a href>` (opens in a new tab, keyboard-reachable) that navigates in place on a plain click. */
export function Link({ to, children, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  return (
    <a
      {...rest}
      href={to}
      onClick={(e) => {
        rest.onClick?.(e);
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

export type Tone = "neutral" | "busy" | "ok" | "danger";

/** A status word with its colour; the word itself carries the meaning, the colour only repeats it. */
export function StatusBadge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return (
    <span className={`badge badge-${tone}`}>
      {tone === "busy" ? <Spinner /> : null}
      {children}
    </span>
  );
}

const BYTE_UNITS = ["B", "KB", "MB", "GB"];

/** `1536` → `1.5 KB`. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${BYTE_UNITS[unit]}`;
}

/** An ISO timestamp in the reader's locale. */
export function formatDate(iso: string): string {
  return new Date(iso).toLocaleString();
}

/** A secret the server shows only once: the value, a copy button, and Done to hide it for good. */
export function SecretOnce({
  message,
  secret,
  testId,
  onDone,
}: {
  message: string;
  secret: string;
  testId: string;
  onDone: () => void;
}) {
  const [isCopied, setCopied] = useState(false);
  return (
    <div role="status" className="secret-once">
      <p>{message}</p>
      <div className="secret" data-testid={testId}>
        {secret}
      </div>
      <div className="actions">
        {navigator.clipboard ? (
          <Button
            variant="secondary"
            onClick={() => {
              void navigator.clipboard.writeText(secret).then(() => setCopied(true));
            }}
          >
            {isCopied ? "Copied" : "Copy"}
          </Button>
        ) : null}
        <Button variant="secondary" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}
