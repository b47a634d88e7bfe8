import { api } from '../api.ts';
import { ItemTable } from './ItemTable.tsx';
import { Message } from './Message.tsx';
import { useAction, useLoad } from './useApi.ts';

interface User {
  username: string;
  role: string;
  missions?: string[] | null;
  email?: string | null;
}

/** Users: the list with role and missions per user; changing them and removing a user. */
export function UsersPage() {
  const users = useLoad(
    async () => (await api<{ body: { users: User[] } }>('GET', '/api/users/list')).body.users,
  );
  const { msg, run, runConfirmed } = useAction();
  const update = (u: User, change: Partial<User>) =>
    run(async () => {
      await api('POST', '/api/users/update', { username: u.username, ...change });
      users.reload();
      return `User ${u.username} updated.`;
    });
  const remove = (u: User) => {
    return runConfirmed(`Remove the user ${u.username}?`, async () => {
      await api('POST', '/api/users/remove', { username: u.username });
      users.reload();
      return `User ${u.username} removed.`;
    });
  };
  return (
    <section>
      <Message msg={msg} />
      <Message msg={[users.error, true]} />
      <ItemTable
        columns={['Username', 'Role', 'Missions']}
        items={users.value}
        rowKey={(u) => u.username}
        row={(u) => (
          <>
            <td>{u.username}</td>
            <td>
              <select
                aria-label={`Role of ${u.username}`}
                value={u.role}
                onChange={(e) => update(u, { role: (e.currentTarget as HTMLSelectElement).value })}
              >
                <option value="admin">admin</option>
                <option value="user">user</option>
              </select>
            </td>
            <td>
              <input
                aria-label={`Missions of ${u.username}`}
                defaultValue={(u.missions ?? []).join(', ')}
                onChange={(e) =>
                  update(u, {
                    missions: (e.currentTarget as HTMLInputElement).value
                      .split(',')
                      .map((m) => m.trim())
                      .filter(Boolean),
                  })
                }
              />
            </td>
            <td>
              <button type="button" aria-label={`Remove ${u.username}`} onClick={() => remove(u)}>
                Remove
              </button>
            </td>
          </>
        )}
      />
    </section>
  );
}
