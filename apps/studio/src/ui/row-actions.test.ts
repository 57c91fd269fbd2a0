// @vitest-environment happy-dom
import type { UseMutationResult } from "@tanstack/react-query";
import { act, cleanup, fireEvent, render, renderHook } from "@testing-library/react";
import { createElement } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError } from "../api/client.ts";
import { DeleteButton, useRowChecks } from "./row-actions.tsx";

// Without vitest's globals, Testing Library does not unmount between tests by itself.
afterEach(cleanup);
afterEach(() => vi.unstubAllGlobals());

describe("useRowChecks", () => {
  it("keeps each row's outcome apart: busy while it runs, then the answer's text or the error's message", async () => {
    const answers = new Map<string, (text: string) => void>();
    const failures = new Map<string, (error: unknown) => void>();
    const test = (id: string) =>
      new Promise<string>((resolve, reject) => {
        answers.set(id, resolve);
        failures.set(id, reject);
      });
    const { result } = renderHook(() => useRowChecks(test));

    let first: Promise<void> = Promise.resolve();
    let second: Promise<void> = Promise.resolve();
    act(() => {
      first = result.current.check("cred_1");
      second = result.current.check("cred_2");
    });
    expect(result.current.results).toEqual({ cred_1: "checking", cred_2: "checking" });

    await act(async () => {
      answers.get("cred_1")?.("Works: 3 models listed in 12 ms.");
      await first;
    });
    expect(result.current.results.cred_1).toEqual({ isOk: true, text: "Works: 3 models listed in 12 ms." });
    expect(result.current.results.cred_2).toBe("checking");

    await act(async () => {
      failures.get("cred_2")?.(new ApiError(401, "invalid_api_key", "The provider refused the key."));
      await second;
    });
    expect(result.current.results.cred_2).toEqual({ isOk: false, text: "The provider refused the key." });
  });
});

describe("DeleteButton", () => {
  const removal = (overrides: Partial<UseMutationResult<void, Error, string>> = {}) =>
    ({
      mutate: vi.fn(),
      isPending: false,
      variables: undefined,
      ...overrides,
    }) as unknown as UseMutationResult<void, Error, string>;

  it("deletes its row only when the person confirms the question", () => {
    const remove = removal();
    const confirm = vi.fn(() => false);
    vi.stubGlobal("confirm", confirm);
    const view = render(
      createElement(DeleteButton, { remove, id: "wh_1", question: "Delete the endpoint?" }),
    );
    fireEvent.click(view.getByRole("button", { name: "Delete" }));
    expect(confirm).toHaveBeenCalledWith("Delete the endpoint?");
    expect(remove.mutate).not.toHaveBeenCalled();

    confirm.mockReturnValue(true);
    fireEvent.click(view.getByRole("button", { name: "Delete" }));
    expect(remove.mutate).toHaveBeenCalledWith("wh_1");
  });

  it("is busy only on the row being deleted", () => {
    const remove = removal({ isPending: true, variables: "key_2" });
    const view = render(
      createElement("div", null, [
        createElement(DeleteButton, { key: 1, remove, id: "key_1", question: "?", label: "Revoke one" }),
        createElement(DeleteButton, { key: 2, remove, id: "key_2", question: "?", label: "Revoke two" }),
      ]),
    );
    expect((view.getByRole("button", { name: "Revoke one" }) as HTMLButtonElement).disabled).toBe(false);
    expect((view.getByRole("button", { name: "Revoke two" }) as HTMLButtonElement).disabled).toBe(true);
  });
});
