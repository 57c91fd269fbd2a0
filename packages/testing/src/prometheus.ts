/**
 * The value of one sample in a Prometheus text exposition (what `GET /metrics` answers), or
 * undefined when absent. Labels not given are not compared.
 *
 * @example expect(prometheusSample(await scrape.text(), "http_requests_total", { status: "404" })).toBeGreaterThan(0);
 */
export function prometheusSample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const given = Object.fromEntries(
      [...(match[3] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => given[key] === value)) return Number(match[4]);
  }
  return undefined;
}
