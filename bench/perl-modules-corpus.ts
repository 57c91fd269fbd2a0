// A second real corpus for the rag bench, read at run time from the machine's Perl library: the
// documentation (POD) of every module under /usr/share/perl/<version> that has a NAME section
// (about 440 on Debian 12's perl-modules-5.36, which every Debian system has installed). Nobody on
// the team wrote it; it is distributed under Perl's terms (Artistic License or GPL). Unlike the Perl
// FAQ's short entries, these are long documents of many chunks (a module's whole manual), which is
// where ranking chunks and answering documents part ways.
//
// Known-item questions as the issue defines them: the NAME line's summary ("File::Temp - return name
// and handle of a temporary file safely") is removed from the document and asked ("return name and
// handle of a temporary file safely"). The document keeps the rest of its manual; its file name is
// the module's name (`File-Temp.md`).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export type KnownItemDocument = { id: string; name: string; question: string; text: string };

/** The Perl library's directory on this machine (the newest version present), or null. */
export function perlLibraryDirectory(root = "/usr/share/perl"): string | null {
  let versions: string[];
  try {
    versions = readdirSync(root).filter((entry) => /^5\.\d+$/.test(entry));
  } catch {
    return null;
  }
  const newest = versions.sort((a, b) => Number(a.split(".")[1]) - Number(b.split(".")[1])).at(-1);
  return newest ? join(root, newest) : null;
}

/** Every module with a NAME summary, as a Markdown document without that summary, sorted by name. */
export function perlModuleDocuments(directory: string): KnownItemDocument[] {
  const documents: KnownItemDocument[] = [];
  const seenQuestions = new Set<string>();
  for (const file of walk(directory).filter((path) => path.endsWith(".pm") || path.endsWith(".pod"))) {
    const pod = podOf(readFileSync(file, "utf8"));
    const named = /^=head1 NAME\s*\n\s*\n?([^\n]+)\n/m.exec(pod);
    const line = named?.[1] ?? "";
    const dash = /^\s*(\S+)\s+-+\s+(.+)$/.exec(plain(line));
    if (!named || !dash) continue;
    const module = dash[1] as string;
    const question = (dash[2] as string).trim();
    // Two modules with the same summary cannot both be the one answer to it.
    if (question.split(/\s+/).length < 2 || seenQuestions.has(question.toLowerCase())) continue;
    seenQuestions.add(question.toLowerCase());
    const text = markdown(pod.replace(named[0], "=head1 NAME\n\n"));
    if (text.length < 200) continue;
    const id = module.replace(/::/g, "-");
    documents.push({ id, name: `${id}.md`, question, text });
  }
  // A module documented in both a .pm and a .pod file, or two with the same manual: the first one
  // read (a knowledge base refuses a second upload of the same bytes).
  const byId = new Map<string, KnownItemDocument>();
  const texts = new Set<string>();
  for (const document of documents)
    if (!byId.has(document.id) && !texts.has(document.text)) {
      byId.set(document.id, document);
      texts.add(document.text);
    }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
}

function walk(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory).sort()) {
    const path = join(directory, entry);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat?.isDirectory()) files.push(...walk(path));
    else if (stat?.isFile()) files.push(path);
  }
  return files;
}

/** The POD paragraphs of a Perl file: from a line starting `=word` to `=cut`. */
function podOf(source: string): string {
  const lines: string[] = [];
  let inPod = false;
  for (const line of source.split("\n")) {
    if (/^=cut\b/.test(line)) {
      inPod = false;
      continue;
    }
    if (/^=[a-zA-Z]/.test(line)) inPod = true;
    if (inPod) lines.push(line);
  }
  return lines.join("\n");
}

/** POD formatting codes (C<…>, B<…>, L<text|target>, E<gt>, with any number of angle brackets) as plain text. */
function plain(text: string): string {
  let result = text;
  for (let i = 0; i < 4; i++)
    result = result
      .replace(/[A-Z]<<+\s(.*?)\s>>+/g, "$1")
      .replace(/L<([^<>|]*)\|[^<>]*>/g, "$1")
      .replace(/E<gt>/g, ">")
      .replace(/E<lt>/g, "<")
      .replace(/E<[^<>]*>/g, "")
      .replace(/[A-Z]<([^<>]*)>/g, "$1");
  return result;
}

/** POD as Markdown: `=headN` become ATX headings, `=item` list items, other commands dropped. */
function markdown(pod: string): string {
  const out: string[] = [];
  for (const line of pod.split("\n")) {
    const heading = /^=head(\d)\s+(.*)$/.exec(line);
    if (heading) {
      out.push(`${"#".repeat(Math.min(6, Number(heading[1])))} ${plain(heading[2] as string)}`);
      continue;
    }
    const item = /^=item\s+(.*)$/.exec(line);
    if (item) {
      out.push(`- ${plain(item[1] as string)}`);
      continue;
    }
    if (/^=[a-zA-Z]/.test(line)) continue;
    out.push(plain(line));
  }
  return `${out
    .join("\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim()}\n`;
}
