import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface Series {
  label: string;
  values: number[];
}

/** Distinct, colour-blind-friendly series colours (Okabe–Ito). */
const COLOURS = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#999999"];

/**
 * Values per day as lines with their points: uPlot (small, canvas). The figure carries a text
 * summary for screen readers, and the tables beneath hold the same numbers.
 *
 * @example <TimeChart label="Tokens per day" days={[1732492800]} series={[{ label: "agent chat", values: [1200] }]} />
 */
export function TimeChart({
  label,
  days,
  series,
  unit,
}: {
  label: string;
  /** Unix seconds at the start of each day. */
  days: number[];
  series: Series[];
  unit: string;
}) {
  const host = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const styles = getComputedStyle(document.documentElement);
    const text = styles.getPropertyValue("--text").trim() || "#17181c";
    const grid = styles.getPropertyValue("--border").trim() || "#dfe1e6";
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 280),
        height: 240,
        scales: { x: { time: true } },
        axes: [axis, { ...axis, size: 60 }],
        legend: { live: false },
        series: [
          {},
          ...series.map((entry, index) => ({
            label: entry.label,
            stroke: COLOURS[index % COLOURS.length],
            width: 2,
            points: { show: true, size: 5 },
          })),
        ],
      },
      [days, ...series.map((entry) => entry.values)],
      element,
    );
    const resize = new ResizeObserver(() =>
      chart.setSize({ width: Math.max(element.clientWidth, 280), height: 240 }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, series]);

  const totals = series.map((entry) => `${entry.label}: ${entry.values.reduce((a, b) => a + b, 0)} ${unit}`);
  return (
    <figure className="chart" aria-label={label}>
      <figcaption>{label}</figcaption>
      <div
        ref={host}
        className="chart-canvas"
        role="img"
        aria-label={`${label}. Totals: ${totals.join("; ") || "none"}.`}
      />
    </figure>
  );
}
