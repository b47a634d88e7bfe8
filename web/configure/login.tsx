import { useState } from 'preact/hooks';
import { api } from '../api.ts';

/** The login form: **Username**, **Password**, **Log in**; a refusal shows the service's message. */
export function Login({ onLogin }: { onLogin: (user: string) => void }) {
  const [error, setError] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      const r = await api<{ username: string; role: string }>('POST', '/api/users/login', {
        username: form.get('username'),
        password: form.get('password'),
      });
      if (r.role !== 'admin') {
        await api('POST', '/api/users/logout');
        setError('The console needs an administrator account.');
        return;
      }
      onLogin(r.username);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <main class="login">
      <h1>Configure</h1>
      <form onSubmit={submit}>
        <label>
          Username
          <input name="username" autocomplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autocomplete="current-password" required />
        </label>
        <button type="submit">Log in</button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
