import { type KeyboardEvent, useId } from "react";
import { Button } from "../ui/ui.tsx";

/**
 * A list of short texts (starter prompts, allowed origins): each with a Remove button, and a box to
 * add one more, checked with `problem` before it joins the list. The box's text (`draft`) belongs to
 * the form, so saving can take a typed entry that was never added rather than drop it.
 */
export function ListEditor({
  label,
  hint,
  items,
  onChange,
  draft,
  onDraftChange,
  problem,
  normalize = (value) => value.trim(),
  max,
  errorAt,
  name,
}: {
  label: string;
  hint: string;
  items: string[];
  onChange: (items: string[]) => void;
  draft: string;
  onDraftChange: (draft: string) => void;
  /** Why this entry cannot be added, or null. */
  problem: (value: string) => string | null;
  normalize?: (value: string) => string;
  max: number;
  /** The API's message for the item at `index` (or the whole list at -1). */
  errorAt: (index: number) => string | undefined;
  name: string;
}) {
  const id = useId();
  const value = normalize(draft);
  const draftProblem = draft.trim() ? listProblem(value, items, max, problem) : null;
  const add = () => {
    if (!value || draftProblem) return;
    onChange([...items, value]);
    onDraftChange("");
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    // Enter adds the entry rather than submitting the whole form.
    if (event.key !== "Enter") return;
    event.preventDefault();
    add();
  };
  return (
    <fieldset className="agent-section list-editor" aria-labelledby={`${id}-legend`}>
      <legend id={`${id}-legend`} className="field-label">
        {label}
      </legend>
      <p className="field-hint">{hint}</p>
      {items.length ? (
        <ul className="list-editor-items" aria-label={label}>
          {items.map((item, index) => (
            <li key={item} data-testid={`${name}-item`}>
              <span>{item}</span>
              <Button
                variant="secondary"
                aria-label={`Remove ${item}`}
                onClick={() => onChange(items.filter((each) => each !== item))}
              >
                Remove
              </Button>
              {errorAt(index) ? (
                <span className="field-error" role="alert">
                  {errorAt(index)}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="list-editor-add">
        <input
          name={name}
          aria-label={`Add to ${label.toLowerCase()}`}
          aria-describedby={draftProblem ? `${id}-problem` : undefined}
          aria-invalid={Boolean(draftProblem)}
          value={draft}
          onChange={(e) => onDraftChange(e.target.value)}
          onKeyDown={onKeyDown}
        />
        <Button variant="secondary" onClick={add} disabled={!value || Boolean(draftProblem)}>
          Add
        </Button>
      </div>
      {draftProblem ? (
        <span id={`${id}-problem`} className="field-error" role="alert">
          {draftProblem}
        </span>
      ) : null}
      {errorAt(-1) ? (
        <span className="field-error" role="alert">
          {errorAt(-1)}
        </span>
      ) : null}
    </fieldset>
  );
}

/**
 * Why `value` cannot join `items`: the entry's own problem, a repeat, or a full list.
 *
 * @example listProblem("https://a.example", ["https://a.example"], 50, originProblem) // "Already in the list."
 */
export function listProblem(
  value: string,
  items: string[],
  max: number,
  problem: (value: string) => string | null,
): string | null {
  if (items.includes(value)) return "Already in the list.";
  if (items.length >= max) return `At most ${max}.`;
  return problem(value);
}
