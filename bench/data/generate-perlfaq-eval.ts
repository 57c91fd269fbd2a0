// npx tsx bench/data/generate-perlfaq-eval.ts [pod directory]
// Builds bench/data/perlfaq-eval.json from the Perl FAQ (perlfaq1–9) as Debian's `perl-doc`
// package ships it (/usr/share/perl/5.*/pod), a real corpus nobody on the team wrote: each FAQ
// entry becomes one Markdown document (its `=head1` section as heading, its answer as text) and its
// question, the entry's own summary line, is removed from it and kept as the known-item question.
// The Perl FAQ is distributed under the same terms as Perl (Artistic License or GPL).
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { repoRoot } from "../lib.ts";

const podDir =
  process.argv[2] ??
  readdirSync("/usr/share/perl")
    .map((version) => `/usr/share/perl/${version}/pod`)
    .find((dir) => {
      try {
        return readdirSync(dir).includes("perlfaq4.pod");
      } catch {
        return false;
      }
    });
if (!podDir) throw new Error("perlfaq*.pod not found: apt-get install perl-doc, or pass the pod directory");

type Entry = { id: string; name: string; question: string; text: string };
const entries: Entry[] = [];
for (let part = 1; part <= 9; part++) {
  const pod = readFileSync(`${podDir}/perlfaq${part}.pod`, "utf8");
  let section = "";
  let question: string | null = null;
  let body: string[] = [];
  let index = 0;
  const flush = () => {
    if (question === null) return;
    const text = body.join("\n\n").trim();
    if (text.length > 0) {
      index += 1;
      const id = `perlfaq${part}-${String(index).padStart(2, "0")}`;
      entries.push({ id, name: `${id}.md`, question, text: `# ${section}\n\n${text}\n` });
    }
    question = null;
    body = [];
  };
  for (const block of pod.split(/\n\s*\n/)) {
    const command = /^=(\w+)\s*([\s\S]*)$/.exec(block.trim());
    if (command) {
      const [, name, rest] = command;
      if (name === "head1") {
        flush();
        section = inline(rest ?? "");
      } else if (name === "head2") {
        flush();
        question = inline(rest ?? "").replace(/\s+/g, " ");
      } else if (name === "item" && question !== null) body.push(`- ${inline(rest ?? "")}`);
      continue;
    }
    if (question === null) continue;
    // Verbatim (indented) blocks are code: kept as they are.
    body.push(/^[ \t]/.test(block) ? block.replace(/^\n+/, "") : inline(block).replace(/\s*\n\s*/g, " "));
  }
  flush();
}

/** POD formatting codes to plain text: C<x>, C<< x >>, L<text|target>, E<gt>, nested ones too. */
function inline(text: string): string {
  const escapes: Record<string, string> = { gt: ">", lt: "<", verbar: "|", sol: "/", quot: '"', amp: "&" };
  let out = text.replace(/[A-Z](<{2,})\s+([\s\S]*?)\s+(>{2,})/g, (_, open: string, inner: string, close: string) =>
    open.length === close.length ? inner : `${open}${inner}${close}`,
  );
  for (let i = 0; i < 5; i++) {
    out = out.replace(/([A-Z])<([^<>]*)>/g, (_, code: string, inner: string) => {
      if (code === "E") return escapes[inner] ?? (/^\d+$/.test(inner) ? String.fromCodePoint(Number(inner)) : inner);
      if (code === "Z" || code === "X") return "";
      if (code === "L") {
        const [label, target] = inner.includes("|") ? inner.split("|") : [null, inner];
        if (label !== null) return label;
        return (target ?? "").includes("://") ? (target ?? "") : (target ?? "").replace(/\/"?([^"]*)"?$/, " $1").trim();
      }
      return inner;
    });
  }
  return out.trim();
}

const out = {
  source: `perlfaq1–9 from Debian's perl-doc package (${podDir})`,
  license: "Same terms as Perl itself: the Artistic License or the GNU GPL",
  documents: entries,
};
writeFileSync(`${repoRoot}/bench/data/perlfaq-eval.json`, `${JSON.stringify(out, null, 1)}\n`);
console.log(`${entries.length} entries, ${entries.reduce((sum, entry) => sum + entry.text.length, 0)} characters`);
