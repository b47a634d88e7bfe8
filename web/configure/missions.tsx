import type { EditorView } from '@codemirror/view';
import { useRef, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { JsonEditor } from './editor.tsx';
import { ItemTable } from './ItemTable.tsx';
import { LayerTree } from './layerTree.tsx';
import { Message } from './Message.tsx';
import { useAction, useLoad } from './useApi.ts';

interface Full {
  version: number;
  config: Record<string, unknown>;
}
interface Validation {
  valid: boolean;
  errors?: { reason: string; invalidFields?: string[] }[];
  warnings?: { reason: string }[];
}

/** Missions: the list, **New mission**, and per mission its versions, config editor, layers and view. */
export function MissionsPage() {
  const missions = useLoad(
    async () => (await api<{ missions: string[] }>('GET', '/api/configure/missions')).missions,
  );
  const [selected, setSelected] = useState<string | null>(null);
  const { msg, run } = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const name = String(new FormData(form).get('mission') ?? '');
    return run(async () => {
      await api('POST', '/api/configure/add', { mission: name });
      form.reset();
      missions.reload();
      setSelected(name);
      return `Mission ${name} created.`;
    });
  };
  return (
    <section>
      <form onSubmit={create}>
        <label>
          Mission name
          <input name="mission" required maxLength={64} />
        </label>
        <button type="submit">New mission</button>
      </form>
      <Message msg={msg} />
      <Message msg={[missions.error, true]} />
      <ul>
        {(missions.value ?? []).map((m) => (
          <li key={m}>
            <button type="button" aria-pressed={m === selected} onClick={() => setSelected(m)}>
              {m}
            </button>
          </li>
        ))}
      </ul>
      {selected && (
        <Mission
          key={selected}
          mission={selected}
          onDestroyed={() => {
            setSelected(null);
            missions.reload();
          }}
        />
      )}
    </section>
  );
}

function Mission({ mission, onDestroyed }: { mission: string; onDestroyed: () => void }) {
  const [rev, setRev] = useState(0);
  const bump = () => setRev((r) => r + 1);
  const full = useLoad(
    () => api<Full>('GET', `/api/configure/get${query({ mission, full: 'true' })}`),
    [mission, rev],
  );
  const versions = useLoad(
    async () =>
      (
        await api<{ versions: { version: number; createdAt: string }[] }>(
          'GET',
          `/api/configure/versions${query({ mission })}`,
        )
      ).versions
        .slice()
        .reverse(),
    [mission, rev],
  );
  const editor = useRef<EditorView | null>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const { msg, run, runConfirmed } = useAction();
  const save = () =>
    run(async () => {
      setProblems([]);
      let config: unknown;
      try {
        config = JSON.parse(editor.current?.state.doc.toString() ?? '');
      } catch (e) {
        throw new Error(`The configuration is not valid JSON: ${(e as Error).message}`);
      }
      const v = await api<Validation>('POST', '/api/configure/validate', { config });
      if (!v.valid) {
        setProblems(
          (v.errors ?? []).map(
            (e) => `${e.reason}${e.invalidFields?.length ? ` (${e.invalidFields.join(', ')})` : ''}`,
          ),
        );
        throw new Error('The configuration is not valid; nothing was saved.');
      }
      const r = await api<{ version: number }>('POST', '/api/configure/upsert', {
        mission,
        config,
        forceClientUpdate: true,
      });
      bump();
      return `Saved as version ${r.version}.`;
    });
  const rollBack = (version: number) =>
    run(async () => {
      const r = await api<{ version: number }>('POST', '/api/configure/upsert', {
        mission,
        version,
        forceClientUpdate: true,
      });
      bump();
      return `Version ${version} restored as version ${r.version}.`;
    });
  const destroy = () => {
    return runConfirmed(`Delete the mission ${mission} and all its versions?`, async () => {
      await api('POST', '/api/configure/destroy', { mission });
      onDestroyed();
      return undefined;
    });
  };
  const text = full.value ? JSON.stringify(full.value.config, null, 2) : '';
  return (
    <article aria-label={`Mission ${mission}`}>
      <h2>
        {mission} {full.value && <span class="small">version {full.value.version}</span>}
      </h2>
      <Message msg={msg} />
      {problems.length > 0 && (
        <ul class="error" aria-label="Validation errors">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <h3>Configuration</h3>
      <JsonEditor text={text} label="Configuration JSON" onView={(v) => (editor.current = v)} />
      <p>
        <button type="button" onClick={save}>
          Save
        </button>{' '}
        <button type="button" onClick={destroy}>
          Delete mission
        </button>
      </p>
      {full.value && <LayerTree mission={mission} config={full.value.config} onChange={bump} />}
      <h3>Versions</h3>
      <ItemTable
        columns={['Version', 'Created']}
        items={versions.value}
        rowKey={(v) => v.version}
        row={(v) => (
          <>
            <td>{v.version}</td>
            <td>{new Date(v.createdAt).toLocaleString()}</td>
            <td>
              <button type="button" onClick={() => rollBack(v.version)}>
                Roll back
              </button>
            </td>
          </>
        )}
      />
    </article>
  );
}
