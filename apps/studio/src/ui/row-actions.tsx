import type { UseMutationResult } from "@tanstack/react-query";
import { type ReactNode, useState } from "react";
import { Guarded } from "../workspaces/Guarded.tsx";
import type { Role } from "../workspaces/queries.ts";
import { Button, errorMessage, StatusBadge } from "./ui.tsx";

/** What a row's "Test" button found: the server's answer in words, or why it failed. */
export interface CheckResult {
  isOk: boolean;
  text: string;
}

/**
 * The "Test" buttons of a list's rows: `check(id)` runs `test` (which answers the text to show on
 * success) and keeps each row's outcome, so several rows can be tested at once.
 *
 * @example const { results, check } = useRowChecks(async (id) => `answered in ${(await ping(id)).ms} ms`);
 */
export function useRowChecks(test: (id: string) => Promise<string>) {
  const [results, setResults] = useState<Record<string, CheckResult | "checking">>({});
  const check = async (id: string) => {
    setResults((current) => ({ ...current, [id]: "checking" }));
    let result: CheckResult;
    try {
      result = { isOk: true, text: await test(id) };
    } catch (error) {
      result = { isOk: false, text: errorMessage(error) };
    }
    setResults((current) => ({ ...current, [id]: result }));
  };
  return { results, check };
}

/** A row's test outcome, announced when it arrives; nothing while it runs or before. */
export function CheckStatus({ result }: { result: CheckResult | "checking" | undefined }) {
  if (!result || result === "checking") return null;
  return (
    <div role="status">
      <StatusBadge tone={result.isOk ? "ok" : "danger"}>{result.isOk ? "OK" : "Failed"}</StatusBadge>{" "}
      <span className={result.isOk ? "muted" : "field-error"}>{result.text}</span>
    </div>
  );
}

/**
 * A row's delete button: asks `question` first, and spins only on the row being deleted.
 * `label` names the row for screen readers ("Delete the OpenAI key …sk-1").
 */
export function DeleteButton({
  remove,
  id,
  question,
  label,
  children = "Delete",
  needs = "editor",
}: {
  remove: UseMutationResult<void, Error, string>;
  id: string;
  question: string;
  label?: string;
  children?: ReactNode;
  /** The role the deletion needs; weaker members do not see the button. */
  needs?: Role;
}) {
  return (
    <Guarded needs={needs}>
      <Button
        variant="danger"
        isBusy={remove.isPending && remove.variables === id}
        onClick={() => {
          if (confirm(question)) remove.mutate(id);
        }}
        {...(label ? { "aria-label": label } : {})}
      >
        {children}
      </Button>
    </Guarded>
  );
}

/** A row's "Test" button, busy while its check runs. */
export function CheckButton({
  checks,
  id,
  label,
}: {
  checks: ReturnType<typeof useRowChecks>;
  id: string;
  label: string;
}) {
  return (
    <Button
      variant="secondary"
      isBusy={checks.results[id] === "checking"}
      onClick={() => void checks.check(id)}
      aria-label={label}
    >
      Test
    </Button>
  );
}
