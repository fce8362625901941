/** A line chart of figures per day, drawn with uPlot once its box is laid out; the box holds its height before. */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface Line {
  label: string;
  stroke: string;
  values: number[];
}

export function Chart({ dates, lines, label }: { dates: string[]; lines: Line[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (box.current === null) return;
    const x = dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const plot = new uPlot({
      width: Math.min(1000, box.current.clientWidth || 600), height: 260,
      series: [{}, ...lines.map((l) => ({ label: l.label, stroke: l.stroke, width: 2 }))],
      axes: [{}, {}],
    }, [x, ...lines.map((l) => l.values)], box.current);
    return () => plot.destroy();
  }, [dates, lines]);
  return <div class="chart" ref={box} role="img" aria-label={label} />;
}
