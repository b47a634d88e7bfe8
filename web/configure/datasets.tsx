import { api } from '../api.ts';
import { ItemTable, occurrencesText } from './ItemTable.tsx';
import { Message } from './Message.tsx';
import { useAction, useLoad } from './useApi.ts';

interface Entry {
  name: string;
  updated: string;
  rows: number;
  columns: string[];
  occurrences: Record<string, unknown[]>;
}

/** Datasets (tabular CSV): entries, **Upload** (replace or append), download, **Delete**. */
export function DatasetsPage() {
  const entries = useLoad(
    async () => (await api<{ body: { entries: Entry[] } }>('POST', '/api/datasets/entries')).body.entries,
  );
  const { msg, run, runConfirmed } = useAction();
  const upload = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const file = f.get('file') as File;
    return run(async () => {
      const q = new URLSearchParams({ name: String(f.get('name')), mode: String(f.get('mode')) });
      const res = await fetch(`/api/datasets/upload?${q}`, {
        method: 'POST',
        headers: { 'content-type': 'text/csv' },
        body: file,
      });
      const json = await res.json().catch(() => ({}));
      if (!res.ok) throw new Error(json.message ?? `Upload failed (${res.status}).`);
      entries.reload();
      form.reset();
      return `Dataset ${json.body?.name} stored: ${json.body?.rows} rows.`;
    });
  };
  const remove = (name: string) => {
    return runConfirmed(`Delete the dataset ${name}?`, async () => {
      await api('DELETE', `/api/datasets/remove/${encodeURIComponent(name)}`);
      entries.reload();
      return `Dataset ${name} deleted.`;
    });
  };
  return (
    <section>
      <form onSubmit={upload}>
        <label>
          Name
          <input name="name" required pattern="[A-Za-z0-9_.\-]{1,128}" />
        </label>
        <label>
          CSV file
          <input name="file" type="file" accept=".csv,text/csv" required />
        </label>
        <span class="field">
          <label htmlFor="dataset-mode">Mode</label>
          <select id="dataset-mode" name="mode">
            <option value="replace">replace</option>
            <option value="append">append</option>
          </select>
        </span>
        <button type="submit">Upload</button>
      </form>
      <Message msg={msg} />
      <Message msg={[entries.error, true]} />
      <ItemTable
        columns={['Name', 'Rows', 'Columns', 'Updated', 'Occurrences']}
        items={entries.value}
        rowKey={(d) => d.name}
        row={(d) => (
          <>
            <td>{d.name}</td>
            <td>{d.rows}</td>
            <td>{(d.columns ?? []).join(', ')}</td>
            <td>{new Date(d.updated).toLocaleString()}</td>
            <td>{occurrencesText(d.occurrences)}</td>
            <td>
              <a href={`/api/datasets/download?layer=${encodeURIComponent(d.name)}&format=csv`}>
                Download CSV
              </a>{' '}
              <button type="button" onClick={() => remove(d.name)}>
                Delete
              </button>
            </td>
          </>
        )}
      />
    </section>
  );
}
