import { describe, expect, it } from "vitest";
import { refuseCgo } from "./go.ts";

const lines = (...source: string[]) => `${source.join("\n")}\n`;

describe("refuseCgo", () => {
  it('refuses import "C" alone, in an import block, and named, at its line', () => {
    expect(refuseCgo(lines("package main", "", 'import "C"'))).toMatchObject({
      line: 3,
      message: expect.stringContaining('cgo (import "C") is not supported'),
    });
    expect(refuseCgo(lines("package main", "import (", '\t"fmt"', '\t_ "C"', ")"))?.line).toBe(4);
    expect(refuseCgo(lines("package main", "// #include <stdio.h>", 'import c "C"'))?.line).toBe(3);
  });

  it('leaves alone a "C" in a comment, a string or a struct, and ordinary imports', () => {
    expect(
      refuseCgo(lines("package main", '// import "C" is not used here', 'import "fmt"')),
    ).toBeUndefined();
    expect(
      refuseCgo(lines("package main", 'import "strings"', "", 'var grade = "C"', 'var note = `import "C"`')),
    ).toBeUndefined();
    expect(
      refuseCgo(lines("package main", "/*", 'import "C"', "*/", "import (", '\t"os"', ")")),
    ).toBeUndefined();
  });
});
