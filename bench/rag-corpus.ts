// The passages the rag bench loads by the ten thousand: two generators, both seeded.
//
// - `topics` (default): a topic-model corpus in the manner of LDA's generative story. A lexicon of
//   30,000 made-up words, 400 topics each favouring 150 of them (Zipf within the topic), and a
//   Zipf-distributed background vocabulary. A passage mixes one to three topics; a query is a short
//   passage drawn from the same distribution and held out of the base, as ann-benchmarks draws its
//   queries. Every passage is distinct and neighbours are graded, as in real documentation.
// - `templates`: the eval set's 120 components re-issued under new names and numbers. At 100k
//   chunks each passage has ~140 near-copies that differ in a name and a few digits; that is a
//   stress case for any graph index (dense clusters of near-duplicates), kept to measure it.

export type CorpusKind = "topics" | "templates";

export interface Corpus {
  passage(): string;
  query(): string;
}

/** mulberry32: the same passages in every run, and a long period (a float LCG would cycle). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SYLLABLES = [
  "vor",
  "quel",
  "brin",
  "tas",
  "mor",
  "zel",
  "kai",
  "dru",
  "fen",
  "lox",
  "pra",
  "sim",
  "tor",
  "val",
  "nex",
  "orb",
  "wyn",
  "gal",
  "hep",
  "rud",
  "cam",
  "ost",
  "ber",
  "dil",
  "fro",
  "gum",
  "hal",
  "jin",
  "kes",
  "lum",
  "mip",
  "nar",
  "pel",
  "ris",
  "sul",
  "tev",
  "uro",
  "wex",
  "yal",
  "zim",
];

/** Picks an index from cumulative weights by binary search. */
function picker(weights: number[], random: () => number): () => number {
  const cumulative: number[] = [];
  let total = 0;
  for (const weight of weights) {
    total += weight;
    cumulative.push(total);
  }
  return () => {
    const target = random() * total;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return low;
  };
}

const zipf = (count: number, exponent: number) =>
  Array.from({ length: count }, (_, rank) => 1 / (rank + 1) ** exponent);

export function topicCorpus(seed = 11): Corpus {
  const random = seededRandom(seed);
  const lexicon: string[] = [];
  const seen = new Set<string>();
  while (lexicon.length < 30_000) {
    const length = 2 + Math.floor(random() * 3);
    const word = Array.from(
      { length },
      () => SYLLABLES[Math.floor(random() * SYLLABLES.length)] as string,
    ).join("");
    if (!seen.has(word)) {
      seen.add(word);
      lexicon.push(word);
    }
  }
  const background = picker(zipf(lexicon.length, 1.05), random);
  const topicWords = Array.from({ length: 400 }, () =>
    Array.from({ length: 150 }, () => lexicon[Math.floor(random() * lexicon.length)] as string),
  );
  const withinTopic = picker(zipf(150, 0.9), random);

  const text = (minWords: number, maxWords: number) => {
    const topics = Array.from(
      { length: 1 + Math.floor(random() * 3) },
      () => topicWords[Math.floor(random() * topicWords.length)] as string[],
    );
    const length = minWords + Math.floor(random() * (maxWords - minWords + 1));
    const words: string[] = [];
    for (let i = 0; i < length; i++) {
      if (random() < 0.35) words.push(lexicon[background()] as string);
      else {
        // The first topic leads; the others are side subjects.
        const topic = random() < 0.6 ? topics[0] : topics[Math.floor(random() * topics.length)];
        words.push((topic as string[])[withinTopic()] as string);
      }
    }
    const sentence = words.join(" ");
    return `${sentence[0]?.toUpperCase()}${sentence.slice(1)}.`;
  };
  return { passage: () => text(25, 60), query: () => text(4, 10) };
}

export function templateCorpus(
  evalSet: { passages: { text: string }[]; queries: { text: string }[] },
  seed = 7,
): Corpus {
  const random = seededRandom(seed);
  const blocks: { name: string; texts: string[] }[] = [];
  for (let i = 0; i + 6 <= evalSet.passages.length; i += 6) {
    const texts = evalSet.passages.slice(i, i + 6).map((passage) => passage.text);
    const capitalised = texts.map((text) => new Set(text.match(/\b[A-Z][a-z]+\b/g) ?? []));
    const name = [...(capitalised[0] ?? [])].find((word) => capitalised.every((set) => set.has(word)));
    if (name) blocks.push({ name, texts });
  }
  const names: string[] = [];
  let pending: string[] = [];
  let queriesAsked = 0;
  const component = () => {
    const block = blocks[Math.floor(random() * blocks.length)] as { name: string; texts: string[] };
    const word = Array.from(
      { length: 3 + Math.floor(random() * 2) },
      () => SYLLABLES[Math.floor(random() * 22)] as string,
    ).join("");
    const name = `${word[0]?.toUpperCase()}${word.slice(1)}`;
    names.push(name);
    return block.texts.map((text) =>
      text
        .replaceAll(block.name, name)
        .replace(/\d+/g, (digits) => String(Math.floor(random() * 10 ** digits.length))),
    );
  };
  return {
    passage() {
      if (pending.length === 0) pending = component();
      return pending.shift() as string;
    },
    // The eval set's questions, asked about components loaded in the base.
    query() {
      const question = evalSet.queries[queriesAsked++ % evalSet.queries.length]?.text ?? "";
      return question.replace(/\b[A-Z][a-z]+\b/, names[Math.floor(random() * names.length)] ?? "");
    },
  };
}
