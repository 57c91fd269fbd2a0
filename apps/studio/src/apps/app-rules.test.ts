import { describe, expect, it } from "vitest";
import {
  isThemeColor,
  normalizeOrigin,
  originProblem,
  slugProblem,
  starterPromptProblem,
} from "./app-rules.ts";
import { conversationQuery } from "./queries.ts";

describe("allowed origins, as the API checks them", () => {
  it.each([
    "https://shop.example.com",
    "https://shop.example.com:8443",
    "http://localhost:5173",
    "http://127.0.0.1",
    "http://[::1]:3000",
  ])("accepts %s", (origin) => {
    expect(originProblem(origin)).toBeNull();
  });

  it.each([
    ["https://shop.example.com/", "Leave out the path"],
    ["https://shop.example.com/chat", "Leave out the path"],
    ["http://shop.example.com", "plain http:// is accepted only for localhost"],
    ["shop.example.com", "Start with https://"],
    ["ftp://shop.example.com", "Use an https:// origin"],
    ["https://shop_example.com", "Not an origin"],
    ["", "Enter an origin"],
  ])("refuses %s, saying why", (origin, why) => {
    expect(originProblem(origin)).toContain(why);
  });

  it("a typed origin is lower-cased and trimmed as a browser sends it, then accepted", () => {
    const typed = normalizeOrigin("  HTTPS://Shop.Example.COM ");
    expect(typed).toBe("https://shop.example.com");
    expect(originProblem(typed)).toBeNull();
  });
});

describe("other app settings", () => {
  it("a slug is 3–63 lower-case letters, digits and inner hyphens", () => {
    expect(slugProblem("support-bot")).toBeNull();
    expect(slugProblem("Support Bot")).not.toBeNull();
    expect(slugProblem("-bot")).not.toBeNull();
    expect(slugProblem("ab")).not.toBeNull();
  });

  it("a theme colour is #RRGGBB", () => {
    expect(isThemeColor("#2563eb")).toBe(true);
    expect(isThemeColor("#fff")).toBe(false);
  });

  it("a starter prompt is not blank and at most 300 characters", () => {
    expect(starterPromptProblem("What can you do?")).toBeNull();
    expect(starterPromptProblem(" ")).not.toBeNull();
    expect(starterPromptProblem("x".repeat(301))).toContain("300");
  });
});

describe("the conversations filter", () => {
  it("asks the API only for what is chosen", () => {
    expect(conversationQuery({ endUser: "", rating: "all" })).toBe("");
    expect(conversationQuery({ endUser: " user-42 ", rating: "dislike" })).toBe(
      "?end_user=user-42&rating=dislike",
    );
  });
});
