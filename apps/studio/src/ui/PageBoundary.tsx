import { Component, type ReactNode } from "react";
import { ErrorBox } from "./ui.tsx";

/**
 * Catches what a screen throws while rendering, a lazily loaded screen's code that could not be
 * downloaded included (offline, or a deploy replaced the hashed file), so the user reads what
 * happened with a way out instead of a blank page.
 */
export class PageBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    const isChunk =
      this.state.error instanceof Error &&
      /dynamically imported module|Importing a module/i.test(this.state.error.message);
    return (
      <ErrorBox
        error={
          isChunk
            ? new Error("This screen could not be downloaded. Check your connection, then try again.")
            : this.state.error
        }
        // A failed dynamic import is remembered by the browser's module map: only a reload asks again.
        onRetry={() => (isChunk ? window.location.reload() : this.setState({ error: null }))}
      />
    );
  }
}
