import { useState } from "react";
import type { Citation } from "../api/schema.gen.ts";
import { passageHref } from "../knowledge/passage-link.ts";
import { Link } from "../ui/ui.tsx";

export type { Citation };

/** Sources shown before "Show more": the best-ranked ones, which answers lean on most. */
const FIRST_SHOWN = 3;

/** The sources under an answer: each passage with its document, opening where it sits. */
export function Citations({ citations }: { citations: Citation[] }) {
  const [isAll, setAll] = useState(false);
  const shown = isAll ? citations : citations.slice(0, FIRST_SHOWN);
  return (
    <section className="citations" aria-label="Sources">
      <h3 className="citations-title">Sources</h3>
      <ol>
        {shown.map((citation) => (
          <li key={citation.chunk_id} className="citation" data-testid="citation">
            <Link to={passageHref(citation)} title="Open the passage in its document">
              <strong>{citation.document_name}</strong> · passage {citation.position + 1}
            </Link>
            <blockquote className="citation-text">{citation.text}</blockquote>
          </li>
        ))}
      </ol>
      {citations.length > FIRST_SHOWN ? (
        <button type="button" className="link-button" onClick={() => setAll(!isAll)} aria-expanded={isAll}>
          {isAll ? "Show fewer" : `Show ${citations.length - FIRST_SHOWN} more`}
        </button>
      ) : null}
    </section>
  );
}
