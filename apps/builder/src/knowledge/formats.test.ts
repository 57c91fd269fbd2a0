import { describe, expect, it } from "vitest";
import { detectFormat } from "./formats.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("detectFormat", () => {
  it("accepts a file whose bytes match its name", () => {
    expect(detectFormat("a.pdf", undefined, bytes("%PDF-1.7\n"))).toBe("pdf");
    expect(detectFormat("a.docx", undefined, new Uint8Array([0x50, 0x4b, 0x03, 0x04, 1]))).toBe("docx");
    expect(detectFormat("README.MD", undefined, bytes("# Title"))).toBe("markdown");
    expect(detectFormat("data.json", undefined, bytes(' {"a": 1}'))).toBe("json");
    expect(detectFormat("noext", "text/csv; charset=utf-8", bytes("a,b"))).toBe("csv");
  });

  it("refuses mismatches and unknown types", () => {
    expect(detectFormat("a.pdf", undefined, bytes("hello"))).toBeUndefined();
    expect(detectFormat("a.txt", undefined, bytes("%PDF-1.7"))).toBeUndefined();
    expect(detectFormat("a.docx", undefined, bytes("plain"))).toBeUndefined();
    expect(detectFormat("a.json", undefined, bytes("not json"))).toBeUndefined();
    expect(detectFormat("a.txt", undefined, new Uint8Array([0x61, 0, 0x62]))).toBeUndefined();
    expect(detectFormat("a.txt", undefined, new Uint8Array([0xc3, 0x28]))).toBeUndefined();
    expect(detectFormat("a.png", "image/png", new Uint8Array([0x89, 0x50]))).toBeUndefined();
  });

  it("tolerates a multi-byte character cut at the end of the sniffed head", () => {
    expect(detectFormat("a.txt", undefined, new Uint8Array([0x68, 0xc3]))).toBe("text");
  });
});
