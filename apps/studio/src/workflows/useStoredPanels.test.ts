// @vitest-environment happy-dom
import { act, cleanup, renderHook } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { useStoredPanels } from "./useStoredPanels.ts";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);

beforeEach(() => localStorage.clear());

describe("useStoredPanels", () => {
  it("opens both panels the first time", () => {
    const { result } = renderHook(() => useStoredPanels());
    expect(result.current[0]).toEqual({ palette: true, side: true });
  });

  it("remembers folded panels for the next visit", () => {
    const first = renderHook(() => useStoredPanels());
    act(() => first.result.current[1]({ palette: false, side: true }));
    expect(first.result.current[0]).toEqual({ palette: false, side: true });
    first.unmount();
    expect(renderHook(() => useStoredPanels()).result.current[0]).toEqual({ palette: false, side: true });
  });

  it("opens both panels when what was stored cannot be read", () => {
    localStorage.setItem("editor-panels", "{not json");
    expect(renderHook(() => useStoredPanels()).result.current[0]).toEqual({ palette: true, side: true });
  });
});
