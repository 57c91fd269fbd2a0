import {
  type AnchorHTMLAttributes,
  type ButtonHTMLAttributes,
  cloneElement,
  type ReactElement,
  type ReactNode,
  useEffect,
  useId,
  useState,
} from "react";
import { ApiError, UNREACHABLE_MESSAGE } from "../api/client.ts";
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

/** How long typing pauses before a list is searched: one request per pause, not one per key. */
const SEARCH_PAUSE_MS = 250;

/**
 * A list's search box and the text the list is filtered by (`q`, trimmed, after a pause in typing):
 * the list asks the API with `?q=` (see `searchPath`), so it searches every page, not the loaded one.
 *
 * @example const search = useListSearch("agents"); const agents = useAgentList(search.q); … {search.box}
 */
export function useListSearch(what: string) {
  const [text, setText] = useState("");
  const [q, setQ] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setQ(text.trim()), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  const box = (
    <input
      type="search"
      className="list-search"
      aria-label={`Search ${what}`}
      placeholder={`Search ${what}`}
      maxLength={200}
      value={text}
      onChange={(e) => setText(e.target.value)}
    />
  );
  return { q, box };
}

/** What a search that found nothing says. */
export function NoMatches({ what, q }: { what: string; q: string }) {
  return <EmptyState title={`No ${what} match “${q}”`} />;
}

/** What to tell the user about any thrown thing; never a bare "Failed to fetch". */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError && /fetch|network/i.test(error.message)) return UNREACHABLE_MESSAGE;
  if (error instanceof Error) return error.message;
  return String(error);
}

/**
 * A missing provider key, in the user's terms: which key, and a link to the screen that adds it
 * (the server's message speaks of `POST /api/credentials`, meant for API users).
 */
export function MissingKey({ message, provider }: { message: string; provider?: string | undefined }) {
  const what = /There is no API key for ([^:.]+)/.exec(message)?.[1] ?? "this provider";
  const variable = /set ([A-Z0-9_]+) on the server/.exec(message)?.[1];
  return (
    <div className="missing-key" role="alert" data-testid="missing-key">
      There is no API key for <strong>{what}</strong>.{" "}
      <Link to={`/settings${provider ? `?provider=${encodeURIComponent(provider)}` : ""}#credentials`}>
        Add a {what} key in Settings
      </Link>
      {variable ? `, or ask whoever runs the server to set ${variable}.` : "."}
    </div>
  );
}

/**
 * A workflow run's error as its run panel and history show it: a missing provider key links to
 * Settings (the API's message, meant for API users, says `POST /api/credentials`).
 */
export function RunErrorText({ error }: { error: { code: string; message: string; node_id?: string } }) {
  if (error.code === "provider_not_configured") return <MissingKey message={error.message} />;
  return (
    <p className="field-error">
      {error.node_id ? `${error.node_id}: ` : ""}
      {error.message}
    </p>
  );
}

/** An error, with "Try again" when the thing that failed can be asked again (a query's refetch). */
export function ErrorBox({ error, onRetry }: { error: unknown; onRetry?: (() => unknown) | undefined }) {
  const [isRetrying, setRetrying] = useState(false);
  if (!error) return null;
  if (error instanceof ApiError && error.code === "provider_not_configured")
    return <MissingKey message={error.message} />;
  return (
    <div className="error-box" role="alert">
      <span>{errorMessage(error)}</span>
      {onRetry ? (
        <Button
          variant="secondary"
          isBusy={isRetrying}
          onClick={() => {
            setRetrying(true);
            void Promise.resolve(onRetry()).finally(() => setRetrying(false));
          }}
        >
          Try again
        </Button>
      ) : null}
    </div>
  );
}

/** A query's error with its retry; shows nothing while the query is fine. */
export function QueryError({ query }: { query: { error: unknown; refetch: () => Promise<unknown> } }) {
  return <ErrorBox error={query.error} onRetry={() => query.refetch()} />;
}

/**
 * A form's error above its fields: everything except the 422 details the form shows beside its own
 * fields (`fields`), so a network failure, a 5xx, or a detail on a field the form does not render
 * is never swallowed.
 */
export function FormError({ error, fields }: { error: unknown; fields: string[] }) {
  if (!error) return null;
  if (error instanceof ApiError && error.details.length) {
    const unshown = error.details.filter((detail) => !fields.includes(detail.path));
    if (!unshown.length) return null;
    return (
      <div className="error-box" role="alert">
        {unshown.map((detail) => (
          <div key={detail.path}>{detail.path ? `${detail.path}: ${detail.message}` : detail.message}</div>
        ))}
      </div>
    );
  }
  return <ErrorBox error={error} />;
}

/** The ApiError whose field messages go beside the inputs, if the error is one. */
export function fieldErrors(error: unknown): ApiError | undefined {
  return error instanceof ApiError ? error : undefined;
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

/** The "Load more" button under a paged list (`usePagedList`); nothing once the last page is in. */
export function LoadMore({
  query,
  what,
}: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };
  what: string;
}) {
  if (!query.hasNextPage) return null;
  return (
    <Button variant="secondary" isBusy={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
      Load more {what}
    </Button>
  );
}
