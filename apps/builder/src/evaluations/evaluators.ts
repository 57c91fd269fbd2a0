import { guardedMatch } from "@app/workflow";
import { z } from "@hono/zod-openapi";
import type { Deps } from "../deps.ts";
import { DEFAULT_EMBEDDING, embedderFor } from "../knowledge/embedders.ts";
import { generateForWorkspace } from "../providers/generate-for-workspace.ts";
import type { EvaluatorSpec } from "./contract.ts";
import type { EvaluatorScore } from "./schema.ts";

/** What one evaluator sees of a row. */
export interface ScoredRow {
  input: string;
  output: string;
  expected: string | null;
}

type ScoreDeps = Pick<Deps, "db" | "clock" | "config" | "ai" | "logger">;

/**
 * One evaluator's score of a row, from 0 to 1 with whether it passed and why. Deterministic
 * evaluators score 1 or 0; `similarity` scores the cosine of the two texts' embeddings (passing at
 * its threshold); `llm_judge` asks the chosen model for a score against the rubric.
 *
 * @example const score = await scoreRow(deps, workspaceId, { type: "exact", case_sensitive: true }, { input, output, expected }, signal);
 */
export async function scoreRow(
  deps: ScoreDeps,
  workspaceId: string,
  spec: EvaluatorSpec,
  row: ScoredRow,
  signal: AbortSignal,
): Promise<EvaluatorScore> {
  const evaluator = spec.type;
  const pass = (passed: boolean, reason: string | null = null): EvaluatorScore => ({
    evaluator,
    score: passed ? 1 : 0,
    passed,
    reason,
  });
  switch (spec.type) {
    case "exact": {
      if (row.expected === null) return pass(false, "the row has no expected answer");
      const fold = (text: string) => (spec.case_sensitive ? text.trim() : text.trim().toLowerCase());
      return pass(fold(row.output) === fold(row.expected));
    }
    case "contains": {
      const needle = spec.value ?? row.expected;
      if (needle === null) return pass(false, "the row has no expected answer");
      const fold = (text: string) => (spec.case_sensitive ? text : text.toLowerCase());
      return pass(fold(row.output).includes(fold(needle)));
    }
    case "regex":
      try {
        return pass(guardedMatch(spec.pattern, row.output));
      } catch (error) {
        return pass(false, error instanceof Error ? error.message : String(error));
      }
    case "json_schema": {
      let value: unknown;
      try {
        value = JSON.parse(stripCodeFence(row.output));
      } catch {
        return pass(false, "the output is not JSON");
      }
      const result = z.fromJSONSchema(spec.schema as Parameters<typeof z.fromJSONSchema>[0]).safeParse(value);
      if (result.success) return pass(true);
      const first = result.error.issues[0];
      return pass(false, first ? `${first.path.join(".") || "(root)"}: ${first.message}` : "does not match");
    }
    case "numeric": {
      const actual = firstNumber(row.output);
      const expected = row.expected === null ? undefined : firstNumber(row.expected);
      if (expected === undefined) return pass(false, "the expected answer has no number");
      if (actual === undefined) return pass(false, "the output has no number");
      const difference = Math.abs(actual - expected);
      return pass(difference <= spec.tolerance, `off by ${difference}`);
    }
    case "similarity": {
      if (row.expected === null) return pass(false, "the row has no expected answer");
      const embedder = await embedderFor(deps, workspaceId, spec.embedding ?? DEFAULT_EMBEDDING);
      const [a, b] = await embedder.embed([row.output, row.expected], signal);
      const similarity = Math.max(0, Math.min(1, cosine(a ?? [], b ?? [])));
      const rounded = Math.round(similarity * 10_000) / 10_000;
      return { evaluator, score: rounded, passed: similarity >= spec.threshold, reason: `cosine ${rounded}` };
    }
    case "llm_judge": {
      const { text } = await generateForWorkspace(deps as Deps, {
        workspaceId,
        provider: spec.provider,
        model: spec.model,
        system: JUDGE_SYSTEM,
        prompt: judgePrompt(spec.rubric, row),
        temperature: 0,
        signal,
        source: "evaluation_judge",
      });
      const verdict = parseVerdict(text);
      if (!verdict)
        return {
          evaluator,
          score: 0,
          passed: false,
          reason: `the judge's answer had no score: ${text.slice(0, 200)}`,
        };
      return {
        evaluator,
        score: verdict.score,
        passed: verdict.score >= spec.pass_score,
        reason: verdict.reason,
      };
    }
  }
}

const JUDGE_SYSTEM =
  'You grade an AI assistant\'s answer against a rubric. Reply with JSON only: {"score": <a number from 0 to 1>, "reason": "<one sentence>"}.';

function judgePrompt(rubric: string, row: ScoredRow): string {
  return [
    `Rubric:\n${rubric}`,
    `Question:\n${row.input}`,
    row.expected === null ? "" : `Reference answer:\n${row.expected}`,
    `Answer to grade:\n${row.output}`,
  ]
    .filter(Boolean)
    .join("\n\n");
}

/**
 * A judge's score and reason from its reply: JSON (possibly in a code fence or amid prose), or else
 * a "score: 0.8" or "8/10" in the text. Scores over 1 are read as out of 10 or 100; undefined when
 * no score is found.
 *
 * @example parseVerdict('```json\n{"score": 0.8, "reason": "close"}\n```') // { score: 0.8, reason: "close" }
 */
export function parseVerdict(text: string): { score: number; reason: string | null } | undefined {
  const object = /\{[\s\S]*\}/.exec(text)?.[0];
  if (object) {
    try {
      const parsed = JSON.parse(object) as { score?: unknown; reason?: unknown };
      const score = typeof parsed.score === "string" ? Number(parsed.score) : parsed.score;
      if (typeof score === "number" && Number.isFinite(score)) {
        return { score: normalise(score), reason: typeof parsed.reason === "string" ? parsed.reason : null };
      }
    } catch {
      // Not JSON after all: try the plain-text forms.
    }
  }
  const outOf = /(\d+(?:\.\d+)?)\s*\/\s*(10|100|5|1)\b/.exec(text);
  if (outOf) return { score: clamp(Number(outOf[1]) / Number(outOf[2])), reason: text.trim().slice(0, 500) };
  const labelled = /score\W{0,3}(\d+(?:\.\d+)?)/i.exec(text);
  if (labelled) return { score: normalise(Number(labelled[1])), reason: text.trim().slice(0, 500) };
  return undefined;
}

function normalise(score: number): number {
  if (score <= 1) return clamp(score);
  if (score <= 10) return clamp(score / 10);
  return clamp(score / 100);
}

function clamp(value: number): number {
  return Math.max(0, Math.min(1, value));
}

function stripCodeFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return fenced?.[1] ?? text;
}

function firstNumber(text: string): number | undefined {
  const match = /-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(text);
  if (!match) return undefined;
  const value = Number(match[0].replaceAll(",", ""));
  return Number.isFinite(value) ? value : undefined;
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return normA === 0 || normB === 0 ? 0 : dot / Math.sqrt(normA * normB);
}
