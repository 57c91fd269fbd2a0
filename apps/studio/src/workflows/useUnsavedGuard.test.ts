// @vitest-environment happy-dom
import { cleanup, renderHook } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { useUnsavedGuard } from "./useUnsavedGuard.ts";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);

const closeTab = () => {
  const event = new Event("beforeunload", { cancelable: true });
  window.dispatchEvent(event);
  return event;
};

describe("useUnsavedGuard", () => {
  it("asks before the tab closes only while there are unsaved changes", () => {
    const { rerender, unmount } = renderHook((isDirty: boolean) => useUnsavedGuard(isDirty), {
      initialProps: false,
    });
    expect(closeTab().defaultPrevented).toBe(false);
    rerender(true);
    expect(closeTab().defaultPrevented).toBe(true);
    rerender(false);
    expect(closeTab().defaultPrevented).toBe(false);
    rerender(true);
    unmount();
    expect(closeTab().defaultPrevented).toBe(false);
  });

  it("lets an in-app navigation go without asking when saved, and asks when not", () => {
    const ask = vi.fn(() => false);
    const { result, rerender } = renderHook((isDirty: boolean) => useUnsavedGuard(isDirty, ask), {
      initialProps: false,
    });
    expect(result.current()).toBe(true);
    expect(ask).not.toHaveBeenCalled();
    rerender(true);
    expect(result.current()).toBe(false);
    expect(ask).toHaveBeenCalledWith("Leave without saving your changes?");
  });
});

describe("useUnsavedGuard and the router", () => {
  it("keeps the screen on an in-app navigation while unsaved changes are refused to be left", async () => {
    const { navigate } = await import("../router.ts");
    window.history.replaceState(null, "", "/workflows/wf_1");
    const ask = vi.fn(() => false);
    const { rerender, unmount } = renderHook((isDirty: boolean) => useUnsavedGuard(isDirty, ask), {
      initialProps: true,
    });
    navigate("/agents");
    expect(window.location.pathname).toBe("/workflows/wf_1");
    expect(ask).toHaveBeenCalledTimes(1);
    navigate("/agents", { force: true });
    expect(window.location.pathname).toBe("/agents");
    rerender(false);
    navigate("/workflows");
    expect(window.location.pathname).toBe("/workflows");
    unmount();
  });
});
