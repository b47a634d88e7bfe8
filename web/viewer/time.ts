import type { TimeWindow } from './layers.ts';

const DAY = 86400_000;

/**
 * A range input labelled **Time** for missions with time-enabled layers: it moves the end of the window
 * (the start stays at the configured initial start) and re-queries those layers when released.
 */
export function renderTimeSlider(
  root: HTMLElement,
  time: TimeWindow | null,
  bounds: { initialstart?: string; initialend?: string } | undefined,
  onChange: (w: TimeWindow) => void,
): void {
  if (!time) {
    root.replaceChildren();
    return;
  }
  const start = Date.parse(time.start);
  const max = Math.max(Date.parse(bounds?.initialend ?? '') || Date.now(), Date.parse(time.end));
  const label = document.createElement('label');
  const input = document.createElement('input');
  input.type = 'range';
  input.min = String(start);
  input.max = String(max);
  input.step = String(DAY / 24);
  input.value = String(Date.parse(time.end));
  const out = document.createElement('output');
  const show = () => {
    out.textContent = new Date(Number(input.value)).toISOString().slice(0, 16).replace('T', ' ');
  };
  show();
  input.addEventListener('input', show);
  input.addEventListener('change', () =>
    onChange({ start: time.start, end: new Date(Number(input.value)).toISOString() }),
  );
  label.append('Time ', input);
  root.replaceChildren(label, out);
}
