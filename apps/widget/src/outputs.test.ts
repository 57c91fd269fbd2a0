// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { renderOutput } from "./outputs.ts";
import { readField } from "./workflow-view.ts";

describe("a run's outputs", () => {
  it("shows an image file as an image, another file as a download link, text as markdown", () => {
    const image = renderOutput("cover", {
      url: "https://b.example/api/files/fil_1",
      content_type: "image/png",
    });
    expect(image.querySelector("img")?.getAttribute("src")).toBe("https://b.example/api/files/fil_1");
    expect(image.querySelector("img")?.getAttribute("alt")).toBe("cover");
    const pdf = renderOutput("report", {
      url: "https://b.example/api/files/fil_2",
      content_type: "application/pdf",
    });
    expect(pdf.querySelector("img")).toBeNull();
    expect(pdf.querySelector("a")?.textContent).toBe("Download report (application/pdf)");
    const text = renderOutput("summary", "**Done** <img src=x onerror=alert(1)>");
    expect(text.querySelector("strong")?.textContent).toBe("Done");
    expect(text.querySelector("img")).toBeNull();
  });

  it("finds the files inside a generation's answer, and never loads a file whose URL is not http(s)", () => {
    const generation = renderOutput("picture", {
      id: "gen_1",
      status: "succeeded",
      outputs: [
        { url: "https://b.example/api/files/fil_3", content_type: "image/webp" },
        { url: "javascript:alert(1)", content_type: "image/png" },
      ],
    });
    expect([...generation.querySelectorAll("img")].map((img) => img.getAttribute("src"))).toEqual([
      "https://b.example/api/files/fil_3",
    ]);
    expect(generation.querySelector("[href^='javascript']")).toBeNull();
    expect(generation.textContent).toContain("status: succeeded");
  });

  it("shows other values as formatted JSON", () => {
    expect(renderOutput("data", { a: [1, 2] }).querySelector("pre")?.textContent).toBe(
      '{\n  "a": [\n    1,\n    2\n  ]\n}',
    );
    expect(renderOutput("n", 42).textContent).toBe("n42");
  });
});

describe("a form field", () => {
  const field = (
    type: "string" | "number" | "boolean" | "object" | "array",
    value: string,
    required = false,
  ) => {
    const control = document.createElement("textarea");
    control.value = value;
    return readField({ input: { name: "f", type, required }, control });
  };

  it("reads each type, leaves an empty optional field out and requires a required one", () => {
    expect(field("string", "hi")).toEqual({ value: "hi" });
    expect(field("number", "2.5")).toEqual({ value: 2.5 });
    expect(field("object", '{"a": 1}')).toEqual({ value: { a: 1 } });
    expect(field("array", "[1]")).toEqual({ value: [1] });
    expect(field("string", "  ")).toEqual({});
    expect(field("string", "", true)).toEqual({ error: "This field is required." });
  });

  it("says what is wrong with bad JSON or the wrong JSON type", () => {
    expect(field("object", "{bad").error).toMatch(/^Not valid JSON: /);
    expect(field("object", "[1]").error).toBe('Enter a JSON object, such as {"key": "value"}.');
    expect(field("array", "{}").error).toBe("Enter a JSON array, such as [1, 2].");
    expect(field("number", "abc").error).toBe("Enter a number.");
  });
});
