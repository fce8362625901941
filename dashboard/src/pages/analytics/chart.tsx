/**
 * A line chart of figures per day, drawn with uPlot once its box is laid out; the box holds its
 * height before. The days are UTC days, so the x axis is in UTC whatever the browser's zone, with a
 * tick a day at most and dates as labels; the y axis counts, so it starts at 0, whole numbers only.
 * Each chart has its title above it and a label on each axis (what is counted, and the days). The
 * legend under it gives the figures of the day under the pointer, and the last day's otherwise.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Line {
  label: string;
  stroke: string;
  values: number[];
}

const DAY_S = 86_400;
const day = (s: number) => new Date(s * 1000).toISOString().slice(0, 10);

/** The legend shows the last day's figures whenever the pointer is not on a day (uPlot's own shows "--"). */
function latestWhenIdle(u: uPlot) {
  const days = u.data[0].length;
  if (days > 0 && u.legend.idx == null) u.setLegend({ idx: days - 1 }, false);
}

export function Chart({ dates, lines, title, yLabel }: { dates: string[]; lines: Line[]; title: string; yLabel: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (box.current === null) return;
    const x = dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const plot = new uPlot({
      width: Math.min(1000, box.current.clientWidth || 600), height: 260,
      tzDate: (s) => uPlot.tzDate(new Date(s * 1000), 'Etc/UTC'),
      hooks: { ready: [latestWhenIdle], setLegend: [latestWhenIdle] },
      // Counts: from 0, a little room above the highest.
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
      series: [{ label: 'Day', value: (_u, s) => (s === null ? '--' : day(s)) }, ...lines.map((l) => ({ label: l.label, stroke: l.stroke, width: 2 }))],
      axes: [
        {
          label: 'Day (UTC, month-day)', space: 70, incrs: [DAY_S, 2 * DAY_S, 7 * DAY_S, 14 * DAY_S, 28 * DAY_S, 91 * DAY_S],
          values: (_u, splits) => splits.map((s) => day(s).slice(5)),
        },
        { label: yLabel, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 1e6, 1e7, 1e8] },
      ],
    }, [x, ...lines.map((l) => l.values)], box.current);
    return () => plot.destroy();
  }, [dates, lines, yLabel]);
  return (
    <figure class="chart-figure">
      <figcaption><h3>{title}</h3></figcaption>
      {/* The canvas draws the axes' labels; the same words for a screen reader. */}
      <div class="chart" ref={box} role="img" aria-label={`${title}. Across: Day (UTC). Up: ${yLabel}. Lines: ${lines.map((l) => l.label).join(', ') || 'none'}.`} />
    </figure>
  );
}
