import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { ItemTable } from './ItemTable.tsx';
import { Message } from './Message.tsx';
import { useAction, useLoad } from './useApi.ts';

interface Token {
  id: number | string;
  name: string | null;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

const HOUR = 3600_000;
const PERIODS: [string, string][] = [
  ['never', 'never'],
  ['1 year', String(365 * 24 * HOUR)],
  ['1 month', String(30 * 24 * HOUR)],
  ['1 week', String(7 * 24 * HOUR)],
  ['1 day', String(24 * HOUR)],
  ['1 hour', String(HOUR)],
];

const when = (t: string | null) => (t ? new Date(t).toLocaleString() : '—');

/** API Tokens: **Token Name**, **Expire After**, **Generate New Token**; the token shown once; **Revoke**. */
export function TokensPage() {
  const tokens = useLoad(
    async () => (await api<{ tokens: Token[] }>('GET', '/api/longtermtoken/get')).tokens,
  );
  const [fresh, setFresh] = useState<string | null>(null);
  const { msg, run } = useAction();
  const generate = (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    return run(async () => {
      const r = await api<{ body: { token: string; name: string } }>('POST', '/api/longtermtoken/generate', {
        name: form.get('name') || undefined,
        period: form.get('period'),
      });
      setFresh(r.body.token);
      tokens.reload();
      return `Token ${r.body.name ?? ''} generated. Copy it now: it is not shown again.`;
    });
  };
  const revoke = (t: Token) =>
    run(async () => {
      await api('POST', '/api/longtermtoken/clear', { id: t.id });
      tokens.reload();
      return `Token ${t.name ?? t.prefix} revoked.`;
    });
  return (
    <section>
      <form onSubmit={generate}>
        <label>
          Token Name
          <input name="name" maxLength={100} />
        </label>
        <span class="field">
          <label htmlFor="token-period">Expire After</label>
          <select id="token-period" name="period">
            {PERIODS.map(([label, v]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </span>
        <button type="submit">Generate New Token</button>
      </form>
      <Message msg={msg} />
      {fresh && (
        <p>
          <label>
            New token
            <output class="token" aria-label="New token">
              {fresh}
            </output>
          </label>{' '}
          <button type="button" onClick={() => navigator.clipboard.writeText(fresh)}>
            Copy token
          </button>{' '}
          <button type="button" onClick={() => setFresh(null)}>
            Done
          </button>
        </p>
      )}
      <Message msg={[tokens.error, true]} />
      <ItemTable
        columns={['Name', 'Prefix', 'Created', 'Expires', 'Last used']}
        items={tokens.value}
        rowKey={(t) => t.id}
        row={(t) => (
          <>
            <td>{t.name}</td>
            <td>
              <code>{t.prefix}</code>
            </td>
            <td>{when(t.createdAt)}</td>
            <td>{t.expiresAt ? when(t.expiresAt) : 'never'}</td>
            <td>{when(t.lastUsedAt)}</td>
            <td>
              <button type="button" onClick={() => revoke(t)}>
                Revoke
              </button>
            </td>
          </>
        )}
      />
    </section>
  );
}
