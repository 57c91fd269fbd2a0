import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, type Page } from "../api/client.ts";
import { useCredentials } from "../settings/credential-queries.ts";
import { Link } from "../ui/ui.tsx";
import { useAgents } from "./queries.ts";

const MODEL_KEY_KINDS = new Set(["http", "replicate"]);
const DISMISSED = "getting-started-dismissed";

/**
 * The first-run checklist: what a new workspace needs before an agent can answer, each step a
 * link to where it is done. Steps tick off from the workspace's own data; it goes away when all
 * are done or the user hides it.
 */
export function GettingStarted() {
  const [isDismissed, setDismissed] = useState(() => localStorage.getItem(DISMISSED) === "1");
  const credentials = useCredentials();
  const agents = useAgents();
  const workflows = useQuery({
    queryKey: ["workflows", "any"],
    queryFn: () => api<Page<{ id: string }>>("/api/workflows?limit=1"),
  });
  const documents = useQuery({
    queryKey: ["getting-started", "documents"],
    queryFn: async () => {
      const bases = await api<Page<{ id: string }>>("/api/knowledge-bases?limit=1");
      const first = bases.data[0];
      if (!first) return 0;
      return (await api<Page<unknown>>(`/api/knowledge-bases/${first.id}/documents?limit=1`)).data.length;
    },
  });
  if (isDismissed) return null;
  // Until every answer is in, the list would tick itself off under the reader's eyes.
  if (!credentials.data || !agents.data || !workflows.data || documents.data === undefined) return null;

  const steps = [
    {
      isDone: credentials.data.data.some((credential) => !MODEL_KEY_KINDS.has(credential.provider)),
      label: "Add a model provider key",
      hint: "Agents and LLM nodes call OpenAI, Anthropic, Google… with your key.",
      to: "/settings#credentials",
    },
    {
      isDone: agents.data.data.length > 0,
      label: "Create an agent",
      hint: "A model, your instructions, tools and knowledge, ready to chat.",
      to: "/agents/new",
    },
    {
      isDone: workflows.data.data.length > 0,
      label: "Build a workflow",
      hint: "Start from a template or drag nodes onto the canvas.",
      to: "/workflows",
    },
    {
      isDone: documents.data > 0,
      label: "Upload a document",
      hint: "Agents and workflows answer from a knowledge base with cited passages.",
      to: "/knowledge",
    },
  ];
  const doneCount = steps.filter((step) => step.isDone).length;
  if (doneCount === steps.length) return null;

  return (
    <section
      className="card getting-started"
      aria-labelledby="getting-started-title"
      data-testid="getting-started"
    >
      <div className="section-header">
        <h2 id="getting-started-title">
          Get started{" "}
          <span className="muted">
            ({doneCount} of {steps.length} done)
          </span>
        </h2>
        <button
          type="button"
          className="btn btn-secondary"
          onClick={() => {
            localStorage.setItem(DISMISSED, "1");
            setDismissed(true);
          }}
        >
          Hide
        </button>
      </div>
      <ol className="checklist">
        {steps.map((step) => (
          <li key={step.label} className={step.isDone ? "is-done" : undefined} data-done={step.isDone}>
            <span className="check" aria-hidden="true">
              {step.isDone ? "✓" : ""}
            </span>
            <span>
              {step.isDone ? (
                <span className="step-label">
                  {step.label} <span className="visually-hidden">(done)</span>
                </span>
              ) : (
                <Link to={step.to} className="step-label">
                  {step.label}
                </Link>
              )}
              <span className="muted step-hint">{step.hint}</span>
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
