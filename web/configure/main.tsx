// The admin console at `/configure` (docs/web.md): a login form, then the Missions, GeoDatasets, Datasets,
// API Tokens and Users pages, each built on the HTTP API only.
import '../style.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { DatasetsPage } from './datasets.tsx';
import { GeoDatasetsPage } from './geodatasets.tsx';
import { Login } from './login.tsx';
import { MissionsPage } from './missions.tsx';
import { TokensPage } from './tokens.tsx';
import { UsersPage } from './users.tsx';

const PAGES = [
  { path: 'missions', name: 'Missions', Page: MissionsPage },
  { path: 'geodatasets', name: 'GeoDatasets', Page: GeoDatasetsPage },
  { path: 'datasets', name: 'Datasets', Page: DatasetsPage },
  { path: 'tokens', name: 'API Tokens', Page: TokensPage },
  { path: 'users', name: 'Users', Page: UsersPage },
];

function currentPage(): string {
  const seg = location.pathname.replace(/^\/configure\/?/, '').split('/')[0];
  return PAGES.some((p) => p.path === seg) ? seg : 'missions';
}

function Console({ user, onLogout }: { user: string; onLogout: () => void }) {
  const [page, setPage] = useState(currentPage());
  useEffect(() => {
    const pop = () => setPage(currentPage());
    addEventListener('popstate', pop);
    return () => removeEventListener('popstate', pop);
  }, []);
  const current = PAGES.find((p) => p.path === page) ?? PAGES[0];
  useEffect(() => {
    document.title = `${current.name} · Configure`;
  }, [current]);
  const go = (e: Event, path: string) => {
    e.preventDefault();
    history.pushState(null, '', `/configure/${path}`);
    setPage(path);
  };
  const logout = async () => {
    await api('POST', '/api/users/logout');
    onLogout();
  };
  return (
    <div class="console">
      <nav aria-label="Console">
        {PAGES.map((p) => (
          <a
            key={p.path}
            href={`/configure/${p.path}`}
            aria-current={p.path === page ? 'page' : undefined}
            onClick={(e) => go(e, p.path)}
          >
            {p.name}
          </a>
        ))}
        <a href="/">Map viewer</a>
      </nav>
      <main>
        <p class="small">
          Signed in as {user}.{' '}
          <button type="button" onClick={logout}>
            Log out
          </button>
        </p>
        <h1>{current.name}</h1>
        <current.Page />
      </main>
    </div>
  );
}

function App() {
  const [user, setUser] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    api<{ body?: { user?: string } }>('GET', '/api/users/logged_in')
      .then((r) => setUser(r.body?.user ?? null))
      .catch(() => setUser(null));
  }, []);
  if (user === undefined) return <p>Loading…</p>;
  if (!user) return <Login onLogin={setUser} />;
  return <Console user={user} onLogout={() => setUser(null)} />;
}

render(<App />, document.getElementById('app')!);
