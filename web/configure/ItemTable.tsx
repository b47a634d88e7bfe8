import type { ComponentChildren } from 'preact';

/**
 * The table of a list page: a header cell per column and a last "Actions" column; `row` renders the
 * cells of one item.
 */
export function ItemTable<T>(props: {
  columns: string[];
  items: T[] | null;
  rowKey: (item: T) => string | number;
  row: (item: T) => ComponentChildren;
}) {
  return (
    <table>
      <thead>
        <tr>
          {props.columns.map((c) => (
            <th key={c}>{c}</th>
          ))}
          <th>
            <span class="small">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {(props.items ?? []).map((item) => (
          <tr key={props.rowKey(item)}>{props.row(item)}</tr>
        ))}
      </tbody>
    </table>
  );
}

/** Where a dataset is used: "Mission (n layers), ..." or a dash. */
export const occurrencesText = (occurrences: Record<string, unknown[]> | undefined) =>
  Object.entries(occurrences ?? {})
    .map(([m, l]) => `${m} (${l.length})`)
    .join(', ') || '—';
