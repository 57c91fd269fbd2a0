import type { AgentTool } from "../api/schema.gen.ts";

export interface AgentTemplate {
  id: string;
  name: string;
  description: string;
  instructions: string;
  tools: AgentTool[];
  /** A small knowledge base created with the agent, so its search tool has something to find at once. */
  sampleKnowledge?: { name: string; documentName: string; text: string };
}

const SAMPLE_HELP_CENTER = `# Returns and refunds

You can return any item within 30 days of delivery, unused and in its packaging.
Start a return from Orders → Return an item; we e-mail a prepaid label within an hour.
Refunds reach the original payment method 3–5 working days after the parcel arrives at our warehouse.

# Shipping

Orders placed before 14:00 (Jakarta time) ship the same working day.
Standard delivery takes 2–4 working days within Java and 4–7 elsewhere in Indonesia.
Express delivery (next working day in Jakarta, Bandung and Surabaya) costs Rp 25.000.

# Payment

We accept bank transfer (virtual account), e-wallets and cards. Prices include VAT.
`;

const STATISTICS = `import statistics

def main(inputs: dict) -> dict:
    values = [float(v) for v in inputs.get("values", [])]
    if not values:
        return {"error": "no values given"}
    return {
        "count": len(values),
        "mean": statistics.fmean(values),
        "median": statistics.median(values),
        "stdev": statistics.stdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "max": max(values),
    }
`;

const CONVERT_UNITS = `const FACTORS = {
  length: { m: 1, km: 1000, cm: 0.01, mm: 0.001, mi: 1609.344, ft: 0.3048, in: 0.0254 },
  mass: { kg: 1, g: 0.001, lb: 0.45359237, oz: 0.028349523125 },
};

function main(inputs) {
  const { value, from, to } = inputs;
  for (const [kind, units] of Object.entries(FACTORS)) {
    if (from in units && to in units) return { kind, result: (Number(value) * units[from]) / units[to] };
  }
  if (["c", "f"].includes(from) && ["c", "f"].includes(to)) {
    const celsius = from === "c" ? Number(value) : ((Number(value) - 32) * 5) / 9;
    return { kind: "temperature", result: to === "c" ? celsius : (celsius * 9) / 5 + 32 };
  }
  return { error: \`cannot convert \${from} to \${to}\` };
}
`;

/**
 * Ready-made agents: each is valid as it is and runs on the workspace's own provider (the request
 * leaves provider and model out, so the server picks the one the workspace has a key for).
 */
export const AGENT_TEMPLATES: AgentTemplate[] = [
  {
    id: "help-center",
    name: "Help-center assistant",
    description: "Answers customers from your help articles, citing them; comes with a sample help center.",
    instructions:
      "You are the shop's customer support assistant. Answer only from the passages the knowledge search finds, " +
      "and cite them. If they do not answer the question, say so and offer to connect the customer with a person. " +
      "Be brief and friendly.",
    tools: [{ type: "knowledge_search", top_k: 5 }],
    sampleKnowledge: { name: "Sample help center", documentName: "help-center.md", text: SAMPLE_HELP_CENTER },
  },
  {
    id: "data-analyst",
    name: "Data analyst",
    description: "Computes statistics of numbers you paste with a Python tool instead of guessing them.",
    instructions:
      "You help people understand numbers. Whenever a question needs a mean, median, spread or range, call the " +
      "`statistics` tool with the numbers rather than computing in your head, then explain the result plainly.",
    tools: [
      {
        type: "code",
        name: "statistics",
        description: "Count, mean, median, standard deviation, min and max of a list of numbers",
        language: "python",
        code: STATISTICS,
        parameters: {
          type: "object",
          properties: { values: { type: "array", items: { type: "number" } } },
          required: ["values"],
        },
      },
    ],
  },
  {
    id: "unit-converter",
    name: "Unit converter",
    description: "Converts lengths, masses and temperatures exactly with a JavaScript tool.",
    instructions:
      "Convert units for the user. Always call `convert` (units: m, km, cm, mm, mi, ft, in, kg, g, lb, oz, c, f) " +
      "and report its result rounded sensibly, with the units.",
    tools: [
      {
        type: "code",
        name: "convert",
        description: "Converts a value between two units of length, mass or temperature",
        language: "javascript",
        code: CONVERT_UNITS,
        parameters: {
          type: "object",
          properties: {
            value: { type: "number" },
            from: { type: "string" },
            to: { type: "string" },
          },
          required: ["value", "from", "to"],
        },
      },
    ],
  },
  {
    id: "meeting-notes",
    name: "Meeting notes",
    description: "Turns a transcript or rough notes into a summary, decisions and action items.",
    instructions:
      "Turn the meeting notes or transcript the user pastes into: a three-sentence summary, the decisions made, " +
      "and action items as a list of 'owner — task — due date' (write 'unassigned' or 'no date' when the notes " +
      "do not say). Do not invent anything that is not in the notes.",
    tools: [],
  },
  {
    id: "writing-editor",
    name: "Writing editor",
    description: "Edits text for clarity and tone, and says what it changed.",
    instructions:
      "You are a careful editor. Rewrite the user's text to be clear and concise in the same language and voice, " +
      "keeping its meaning. After the rewrite, list the main changes in at most five short bullets.",
    tools: [],
  },
  {
    id: "translator",
    name: "Translator (Indonesian ↔ English)",
    description: "Translates between Indonesian and English, keeping names, numbers and formatting.",
    instructions:
      "Translate the user's text: Indonesian into English, anything else into Indonesian. Keep names, numbers, " +
      "Markdown and line breaks as they are. Answer with the translation only.",
    tools: [],
  },
];
