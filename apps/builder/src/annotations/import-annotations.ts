import { type Clock, hasUnstorableCharacter, newId } from "@app/core";
import type { ErrorDetail } from "@app/http";
import { and, eq, inArray, sql } from "drizzle-orm";
import Papa from "papaparse";
import type { BuilderDb } from "../db/index.ts";
import { ANSWER_MAX_LENGTH, IMPORT_MAX_ROWS, QUESTION_MAX_LENGTH } from "./contract.ts";
import { AnnotationErrors } from "./errors.ts";
import { annotations } from "./schema.ts";

interface ImportedPair {
  question: string;
  answer: string;
}

/**
 * The question → answer pairs of a CSV (UTF-8, a header row naming `question` and `answer` in any
 * order and case; other columns are ignored; a byte order mark is fine). Every problem is reported
 * at once, by row as a spreadsheet numbers them (the header is row 1), as 422 `invalid_import`.
 *
 * @example const pairs = parseAnnotationCsv("question,answer\r\nHi?,Hello!\r\n");
 */
export function parseAnnotationCsv(text: string): ImportedPair[] {
  const parsed = Papa.parse<string[]>(text.replace(/^\uFEFF/, ""), { skipEmptyLines: false });
  const [header = [], ...rows] = parsed.data;
  const columns = header.map((name) => name.trim().toLowerCase());
  const questionAt = columns.indexOf("question");
  const answerAt = columns.indexOf("answer");
  if (questionAt === -1 || answerAt === -1) {
    throw AnnotationErrors.INVALID_IMPORT({
      message: "The first row must name the columns, with `question` and `answer` among them.",
      details: [
        {
          path: "row 1",
          message: `has ${header.map((name) => JSON.stringify(name)).join(", ") || "nothing"}`,
        },
      ],
    });
  }
  const problems: ErrorDetail[] = [];
  // Papa's errors name the data row (0-based, after the header) where a quote was left open.
  for (const error of parsed.errors) {
    if (error.type === "Quotes") {
      problems.push({ path: `row ${(error.row ?? 0) + 1}`, message: `${error.message} (an unclosed quote)` });
    }
  }
  const pairs: ImportedPair[] = [];
  const firstRowOf = new Map<string, number>();
  rows.forEach((cells, index) => {
    const row = index + 2;
    if (cells.every((cell) => cell.trim() === "")) return;
    const question = (cells[questionAt] ?? "").trim();
    const answer = (cells[answerAt] ?? "").trim();
    const rowProblems = [
      ...fieldProblems("question", question, QUESTION_MAX_LENGTH),
      ...fieldProblems("answer", answer, ANSWER_MAX_LENGTH),
    ];
    const earlier = firstRowOf.get(question);
    if (earlier !== undefined) rowProblems.push(`repeats the question of row ${earlier}`);
    for (const message of rowProblems) problems.push({ path: `row ${row}`, message });
    if (rowProblems.length > 0) return;
    firstRowOf.set(question, row);
    pairs.push({ question, answer });
  });
  if (pairs.length + problems.length === 0)
    problems.push({ path: "row 2", message: "no rows under the header" });
  if (pairs.length > IMPORT_MAX_ROWS) {
    problems.push({
      path: "body",
      message: `has ${pairs.length} rows; at most ${IMPORT_MAX_ROWS} at a time`,
    });
  }
  if (problems.length > 0) {
    const first = problems[0];
    throw AnnotationErrors.INVALID_IMPORT({
      message: `${problems.length} problem${problems.length === 1 ? "" : "s"}, nothing imported; the first: ${first?.path}: ${first?.message}.`,
      details: problems.slice(0, 1000),
    });
  }
  return pairs;
}

function fieldProblems(name: string, value: string, maxLength: number): string[] {
  if (value === "") return [`${name} is empty`];
  if (value.length > maxLength) return [`${name} is ${value.length} characters; at most ${maxLength}`];
  if (hasUnstorableCharacter(value)) return [`${name} holds NUL (U+0000) or an unpaired surrogate`];
  return [];
}

/**
 * Adds the pairs to the agent's annotations in one transaction: a question the agent already has
 * (the same text) gets the new answer, the others become new annotations. Importing the same file
 * twice therefore changes nothing the second time.
 *
 * @example const { created, updated } = await importAnnotations({ db, clock }, workspaceId, agentId, pairs);
 */
export async function importAnnotations(
  { db, clock }: { db: BuilderDb; clock: Clock },
  workspaceId: string,
  agentId: string,
  pairs: ImportedPair[],
): Promise<{ created: number; updated: number }> {
  const now = clock.now();
  return db.transaction(async (tx) => {
    const existing = new Map<string, string>();
    // In slices: one parameter per question, and a statement takes at most 65,535.
    for (let start = 0; start < pairs.length; start += 1000) {
      const questions = pairs.slice(start, start + 1000).map((pair) => pair.question);
      const rows = await tx
        .select({ id: annotations.id, question: annotations.question })
        .from(annotations)
        .where(
          and(
            eq(annotations.workspaceId, workspaceId),
            eq(annotations.agentId, agentId),
            inArray(annotations.question, questions),
          ),
        );
      for (const row of rows) existing.set(row.question, row.id);
    }
    const fresh = pairs.filter((pair) => !existing.has(pair.question));
    const changed = pairs.filter((pair) => existing.has(pair.question));
    for (let start = 0; start < fresh.length; start += 1000) {
      await tx.insert(annotations).values(
        fresh.slice(start, start + 1000).map((pair) => ({
          id: newId("ann", now.getTime()),
          workspaceId,
          agentId,
          question: pair.question,
          answer: pair.answer,
          createdAt: now,
          updatedAt: now,
        })),
      );
    }
    for (let start = 0; start < changed.length; start += 1000) {
      const values = changed.slice(start, start + 1000).map((pair) => ({
        id: existing.get(pair.question),
        answer: pair.answer,
      }));
      await tx.execute(sql`update ${annotations} a set answer = v.answer, updated_at = ${now}
        from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(id text, answer text)
        where a.id = v.id`);
    }
    return { created: fresh.length, updated: changed.length };
  });
}
