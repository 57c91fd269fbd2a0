import { useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { useAgents } from "../agents/queries.ts";
import { api, type Page } from "../api/client.ts";
import type { Billing, ModelCall, Usage } from "../api/schema.gen.ts";
import { DataTable, EmptyState, formatDate, Loading, PageHeader, QueryError } from "../ui/ui.tsx";
import { type Series, TimeChart } from "./TimeChart.tsx";

const DAY_MS = 86_400_000;
/** At most this many calls are read for the charts (ten pages); the totals table counts them all. */
const MAX_CALL_PAGES = 10;
const SOURCE_LABELS: Record<string, string> = {
  agent_chat: "Agent chat",
  agent_tool: "Agent tools",
  workflow_llm: "Workflow LLM nodes",
  workflow_code: "Workflow code",
};
/**
 * The kinds of spending, by the ledger's `details.meter`. A charge's description names its
 * quantities ("python sandbox run, 9 ms"), so grouping by it made a series per run duration.
 */
const METER_LABELS: Record<string, string> = {
  llm_tokens: "Model tokens",
  generation: "Image and video generation",
  sandbox: "Code sandbox",
};
const KIND_LABELS: Record<string, string> = { refund: "Refunds" };

/** The kind of spending a ledger debit is, as the chart's series name. */
function spendingKind(entry: { kind: string; details: Record<string, unknown> }): string {
  const meter = typeof entry.details.meter === "string" ? entry.details.meter : undefined;
  if (meter) return METER_LABELS[meter] ?? meter;
  return KIND_LABELS[entry.kind] ?? entry.kind;
}

function dayStart(time: number): number {
  const date = new Date(time);
  date.setHours(0, 0, 0, 0);
  return date.getTime();
}

/** Days of the range, oldest first, as local midnights. */
function daysOf(fromMs: number, toMs: number): number[] {
  const days: number[] = [];
  for (let day = dayStart(fromMs); day <= toMs; day += DAY_MS) days.push(dayStart(day + DAY_MS / 2));
  return days;
}

/** Sums `value` of each item into its day and its group; the biggest groups get their own series. */
function bucket<T>(
  items: T[],
  days: number[],
  at: (item: T) => number,
  group: (item: T) => string,
  value: (item: T) => number,
): Series[] {
  const index = new Map(days.map((day, i) => [day, i]));
  const groups = new Map<string, number[]>();
  for (const item of items) {
    const slot = index.get(dayStart(at(item)));
    if (slot === undefined) continue;
    const key = group(item);
    const values = groups.get(key) ?? days.map(() => 0);
    values[slot] = (values[slot] ?? 0) + value(item);
    groups.set(key, values);
  }
  const sorted = [...groups.entries()].sort(
    ([, a], [, b]) => b.reduce((x, y) => x + y, 0) - a.reduce((x, y) => x + y, 0),
  );
  const top = sorted.slice(0, 5).map(([label, values]) => ({ label, values }));
  const rest = sorted.slice(5);
  if (rest.length)
    top.push({
      label: "Other",
      values: days.map((_, i) => rest.reduce((sum, [, values]) => sum + (values[i] ?? 0), 0)),
    });
  return top;
}

/** Spending in credits and tokens over time, per agent and per kind of work, with the ledger beneath. */
export function UsagePage() {
  const [rangeDays, setRangeDays] = useState(30);
  // Whole days, so the query key stays the same between renders.
  const [toMs] = useState(() => dayStart(Date.now()) + DAY_MS);
  const fromMs = toMs - rangeDays * DAY_MS;
  const usage = useQuery({
    queryKey: ["usage", fromMs, toMs],
    queryFn: () =>
      api<Usage>(`/api/usage?from=${new Date(fromMs).toISOString()}&to=${new Date(toMs).toISOString()}`),
  });
  const calls = useQuery({
    queryKey: ["usage-calls", fromMs],
    queryFn: async () => {
      const all: ModelCall[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < MAX_CALL_PAGES; page++) {
        const answer: Page<ModelCall> = await api<Page<ModelCall>>(
          `/api/usage/calls?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        );
        all.push(...answer.data);
        const oldest = answer.data.at(-1);
        if (!answer.has_more || !oldest || Date.parse(oldest.created_at) < fromMs) break;
        cursor = answer.next_cursor;
      }
      return all;
    },
  });
  const billing = useQuery({
    queryKey: ["billing"],
    queryFn: () => api<Billing>("/api/billing"),
  });
  const agents = useAgents();

  const days = useMemo(() => daysOf(fromMs, toMs - 1), [fromMs, toMs]);
  const agentName = useMemo(
    () => new Map((agents.data?.data ?? []).map((agent) => [agent.id, agent.name])),
    [agents.data],
  );
  const tokenSeries = useMemo(
    () =>
      bucket(
        calls.data ?? [],
        days,
        (call) => Date.parse(call.created_at),
        (call) =>
          call.agent_id
            ? `Agent: ${agentName.get(call.agent_id) ?? call.agent_id}`
            : (SOURCE_LABELS[call.source] ?? call.source),
        (call) => call.input_tokens + call.output_tokens,
      ),
    [calls.data, days, agentName],
  );
  const spent = useMemo(
    () => (billing.data?.ledger ?? []).filter((entry) => entry.credits < 0),
    [billing.data],
  );
  const creditSeries = useMemo(
    () =>
      bucket(
        spent,
        days,
        (entry) => Date.parse(entry.created_at),
        spendingKind,
        (entry) => -entry.credits,
      ),
    [spent, days],
  );

  return (
    <>
      <PageHeader
        title="Usage"
        actions={
          <label className="inline">
            Range
            <select value={rangeDays} onChange={(e) => setRangeDays(Number(e.target.value))}>
              <option value={7}>Last 7 days</option>
              <option value={30}>Last 30 days</option>
              <option value={90}>Last 90 days</option>
            </select>
          </label>
        }
      />
      <QueryError query={calls} />
      <QueryError query={billing} />
      <div className="usage-charts">
        <section className="card">
          {calls.isPending ? <Loading what="model calls" /> : null}
          {calls.data && tokenSeries.length === 0 ? (
            <EmptyState title="No model calls in this range">
              <p>Chats, workflow LLM nodes and agent tools show here by the day.</p>
            </EmptyState>
          ) : null}
          {tokenSeries.length > 0 ? (
            <TimeChart
              label="Tokens per day"
              days={days.map((d) => d / 1000)}
              series={tokenSeries}
              unit="tokens"
            />
          ) : null}
        </section>
        <section className="card">
          {billing.isPending ? <Loading what="credits" /> : null}
          {billing.data && creditSeries.length === 0 ? (
            <EmptyState title="No credits spent in this range">
              <p>Model calls, generations and code runs spend credits; they show here by the day.</p>
            </EmptyState>
          ) : null}
          {creditSeries.length > 0 ? (
            <TimeChart
              label="Credits spent per day"
              days={days.map((d) => d / 1000)}
              series={creditSeries}
              unit="credits"
            />
          ) : null}
        </section>
      </div>
      <section className="card" aria-labelledby="models-title">
        <h2 id="models-title">By model</h2>
        <QueryError query={usage} />
        {usage.data && usage.data.data.length > 0 ? (
          <DataTable
            label="Usage by model"
            columns={["Provider", "Model", "Calls", "Failed", "Input tokens", "Output tokens", "Avg latency"]}
          >
            {usage.data.data.map((row) => (
              <tr key={`${row.provider}/${row.model}`} data-testid="usage-row">
                <td>{row.provider}</td>
                <td>{row.model}</td>
                <td>{row.calls}</td>
                <td>{row.failed_calls}</td>
                <td>{row.input_tokens}</td>
                <td>{row.output_tokens}</td>
                <td>{row.avg_latency_ms} ms</td>
              </tr>
            ))}
          </DataTable>
        ) : usage.data ? (
          <p className="muted">No model calls in this range.</p>
        ) : null}
      </section>
      <section className="card" aria-labelledby="spent-title">
        <h2 id="spent-title">Ledger</h2>
        {spent.length > 0 ? (
          <DataTable label="Credits spent" columns={["Date", "Credits", "What"]}>
            {spent.map((entry) => (
              <tr key={entry.id} data-testid="usage-ledger-row">
                <td>{formatDate(entry.created_at)}</td>
                <td>{entry.credits}</td>
                <td>{entry.description}</td>
              </tr>
            ))}
          </DataTable>
        ) : billing.data ? (
          <p className="muted">Nothing spent yet.</p>
        ) : null}
      </section>
    </>
  );
}
