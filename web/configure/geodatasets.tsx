import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ItemTable, occurrencesText } from './ItemTable.tsx';
import { type Job, putWithProgress, waitForJob } from './jobs.ts';
import { Message } from './Message.tsx';
import { useAction, useLoad } from './useApi.ts';

interface Entry {
  name: string;
  updated: string;
  num_features: number;
  properties_type: string;
  start_prop: string | null;
  end_prop: string | null;
  group_id_prop: string | null;
  field_stats?: Record<string, Record<string, unknown>>;
  occurrences: Record<string, unknown[]>;
}

const jobText = (what: string, j: Job) =>
  `${what}: ${j.state}${j.processed ? ` (${j.processed}${j.total ? ` of ${j.total}` : ''} features)` : ''}${j.error ? ` — ${j.error}` : ''}`;

/** GeoDatasets: entries, **Upload** with progress and the job's end state, statistics, jobs, **Delete**. */
export function GeoDatasetsPage() {
  const entries = useLoad(
    async () => (await api<{ body: { entries: Entry[] } }>('GET', '/api/geodatasets/entries')).body.entries,
  );
  const [progress, setProgress] = useState<number | null>(null);
  const { msg, run, runConfirmed, setMsg } = useAction();
  const upload = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const file = f.get('file') as File;
    return run(async () => {
      const opt = (k: string) => (f.get(k) ? String(f.get(k)) : undefined);
      const { body } = await api<{
        body: { job: Job; upload: { url: string; headers: Record<string, string> } };
      }>('POST', '/api/geodatasets/upload', {
        name: f.get('name'),
        filename: file.name,
        size: file.size,
        startProp: opt('startProp'),
        endProp: opt('endProp'),
        groupIdProp: opt('groupIdProp'),
      });
      setProgress(0);
      await putWithProgress(body.upload.url, body.upload.headers, file, setProgress);
      const job = await waitForJob(body.job.id, (j) => setMsg([jobText('Upload', j), false]));
      entries.reload();
      if (job.state === 'failed') throw new Error(jobText('Upload', job));
      form.reset();
      return jobText('Upload', job);
    });
  };
  const startJob = (what: string, path: string) =>
    run(async () => {
      const { body } = await api<{ body: { job: Job } }>('POST', path);
      const job = await waitForJob(body.job.id, (j) => setMsg([jobText(what, j), false]));
      entries.reload();
      if (job.state === 'failed') throw new Error(jobText(what, job));
      return jobText(what, job);
    });
  const remove = (name: string) => {
    return runConfirmed(`Delete the geodataset ${name}? Its features cannot be restored.`, async () => {
      await api('DELETE', `/api/geodatasets/remove/${encodeURIComponent(name)}`);
      entries.reload();
      return `Geodataset ${name} deleted.`;
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
          GeoJSON file
          <input
            name="file"
            type="file"
            accept=".json,.geojson,application/geo+json,application/json"
            required
          />
        </label>
        <label>
          Start time property
          <input name="startProp" />
        </label>
        <label>
          End time property
          <input name="endProp" />
        </label>
        <label>
          Group id property
          <input name="groupIdProp" />
        </label>
        <button type="submit">Upload</button>
      </form>
      {progress !== null && (
        <label>
          Upload progress <progress max={1} value={progress} />
        </label>
      )}
      <Message msg={msg} />
      <Message msg={[entries.error, true]} />
      <ItemTable
        columns={['Name', 'Features', 'Updated', 'Time fields', 'Group field', 'Occurrences']}
        items={entries.value}
        rowKey={(d) => d.name}
        row={(d) => (
          <>
            <td>{d.name}</td>
            <td>{d.num_features}</td>
            <td>{new Date(d.updated).toLocaleString()}</td>
            <td>{[d.start_prop, d.end_prop].filter(Boolean).join(' – ') || '—'}</td>
            <td>{d.group_id_prop ?? '—'}</td>
            <td>{occurrencesText(d.occurrences)}</td>
            <td>
              <details>
                <summary>Field statistics</summary>
                <Stats stats={d.field_stats} />
              </details>
              <button
                type="button"
                onClick={() =>
                  startJob(
                    `Statistics of ${d.name}`,
                    `/api/geodatasets/recompute_stats/${encodeURIComponent(d.name)}`,
                  )
                }
              >
                Recompute statistics
              </button>{' '}
              {d.properties_type === 'json' && (
                <button
                  type="button"
                  onClick={() =>
                    startJob(
                      `Conversion of ${d.name}`,
                      `/api/geodatasets/convert_properties/${encodeURIComponent(d.name)}`,
                    )
                  }
                >
                  Convert to jsonb
                </button>
              )}{' '}
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

function Stats({ stats }: { stats?: Record<string, Record<string, unknown>> }) {
  if (!stats || !Object.keys(stats).length) return <p class="small">No numeric fields.</p>;
  const cols = ['min', 'max', 'mean', 'stddev', 'count'];
  return (
    <table>
      <thead>
        <tr>
          <th>Field</th>
          {cols.map((c) => (
            <th key={c}>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {Object.entries(stats).map(([field, s]) => (
          <tr key={field}>
            <td>{field}</td>
            {cols.map((c) => (
              <td key={c}>{s[c] === undefined || s[c] === null ? '—' : String(s[c])}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
