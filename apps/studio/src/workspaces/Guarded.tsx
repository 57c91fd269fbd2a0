import type { ReactNode } from "react";
import { type Role, useHasRole } from "./queries.ts";

/**
 * Shows `children` (an edit control) only to members whose role allows what it does: viewers see
 * no buttons that would only answer 403. The API refuses regardless.
 *
 * @example <Guarded><Button onClick={create}>New agent</Button></Guarded>
 */
export function Guarded({ needs = "editor", children }: { needs?: Role; children: ReactNode }) {
  return useHasRole(needs) ? children : null;
}
