import { useState } from "react";

/** Copies text to the clipboard and says so for a moment; hidden where the clipboard is unavailable. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [outcome, setOutcome] = useState<"copied" | "failed" | null>(null);
  if (!navigator.clipboard) return null;
  const show = (shown: "copied" | "failed") => {
    setOutcome(shown);
    setTimeout(() => setOutcome(null), 1500);
  };
  return (
    <button
      type="button"
      className="btn btn-secondary btn-small"
      aria-label={label}
      onClick={() => {
        // The browser may refuse (no permission, page not focused): say so rather than nothing.
        navigator.clipboard.writeText(text).then(
          () => show("copied"),
          () => show("failed"),
        );
      }}
    >
      {outcome === "copied" ? "Copied" : outcome === "failed" ? "Copy failed: select and copy" : "Copy"}
    </button>
  );
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

function summary(value: unknown): string {
  if (Array.isArray(value)) return `[${value.length}]`;
  if (value && typeof value === "object") return `{${Object.keys(value).length}}`;
  return "";
}

/** Objects and arrays past this depth start folded, so a large HTTP response opens readable. */
const OPEN_DEPTH = 3;
/** Longer strings start cut with a way to see all of them. */
const LONG_STRING = 400;

function Scalar({ value }: { value: unknown }) {
  const [isFull, setFull] = useState(false);
  if (typeof value === "string") {
    const isLong = value.length > LONG_STRING;
    return (
      <span className="json-string">
        "{isLong && !isFull ? `${value.slice(0, LONG_STRING)}…` : value}"
        {isLong ? (
          <button type="button" className="link-button" onClick={() => setFull(!isFull)}>
            {isFull ? "less" : `all ${value.length} characters`}
          </button>
        ) : null}
      </span>
    );
  }
  if (value === null || value === undefined) return <span className="json-null">null</span>;
  return <span className={`json-${typeof value}`}>{String(value)}</span>;
}

function Node({ name, value, depth, path }: { name: string; value: unknown; depth: number; path: string }) {
  const isBranch = value !== null && typeof value === "object";
  if (!isBranch) {
    return (
      <li className="json-leaf">
        <span className="json-key">{name}</span>: <Scalar value={value} />
      </li>
    );
  }
  const entries = Array.isArray(value)
    ? value.map((item, index) => [String(index), item] as const)
    : Object.entries(value as Record<string, unknown>);
  return (
    <li>
      <details open={depth < OPEN_DEPTH}>
        <summary>
          <span className="json-key">{name}</span> <span className="muted">{summary(value)}</span>
          <CopyButton text={asText(value)} label={`Copy ${path}`} />
        </summary>
        <ul className="json-tree">
          {entries.map(([key, item]) => (
            <Node key={key} name={key} value={item} depth={depth + 1} path={`${path}.${key}`} />
          ))}
        </ul>
      </details>
    </li>
  );
}

/**
 * A JSON value as a tree: objects and arrays fold, each has a copy button, long strings wrap
 * (never one character per line) and start cut.
 *
 * @example <JsonTree label="Outputs" value={{ status: 200, json: { ok: true } }} />
 */
export function JsonTree({ label, value }: { label: string; value: unknown }) {
  const isBranch = value !== null && typeof value === "object";
  return (
    <div className="json-view" data-testid={`json-${label.toLowerCase()}`}>
      <div className="json-view-header">
        <strong>{label}</strong>
        <CopyButton text={asText(value)} label={`Copy ${label.toLowerCase()}`} />
      </div>
      {isBranch ? (
        <ul className="json-tree json-root">
          {(Array.isArray(value)
            ? value.map((item, index) => [String(index), item] as const)
            : Object.entries(value as Record<string, unknown>)
          ).map(([key, item]) => (
            <Node key={key} name={key} value={item} depth={1} path={`${label.toLowerCase()}.${key}`} />
          ))}
        </ul>
      ) : (
        <div className="json-tree json-root">
          <Scalar value={value} />
        </div>
      )}
    </div>
  );
}
