import { afterAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '#lib/auth/passwords.ts';
import { sha256 } from '#lib/auth/secrets.ts';
import { createSession, userForSession } from '#lib/auth/sessions.ts';
import { generateToken, userForToken } from '#lib/auth/tokens.ts';
import { createUser } from '#lib/auth/users.ts';
import { closeDb, getDb } from '#lib/db/index.ts';
import { uniqueName } from '../helpers.ts';

afterAll(() => closeDb());

describe('password hashing', () => {
  it('never stores the password, and verifies it', async () => {
    const db = getDb();
    const password = 'Tr0ub4dor&3-unique-marker';
    const user = await createUser(db.sql, { username: uniqueName('hash'), password, role: 'user' });
    const [row] = await db.sql`select * from users where id = ${user.id}`;
    expect(JSON.stringify(row)).not.toContain(password);
    expect(row.password_hash).toMatch(/^scrypt\$16384\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
    expect(await verifyPassword(password, row.password_hash)).toBe(true);
    expect(await verifyPassword(`${password}x`, row.password_hash)).toBe(false);
  });

  it('salts: the same password hashes differently each time', async () => {
    const [a, b] = await Promise.all([hashPassword('same'), hashPassword('same')]);
    expect(a).not.toBe(b);
    expect(await verifyPassword('same', a)).toBe(true);
    expect(await verifyPassword('same', 'not-a-hash')).toBe(false);
  });
});

describe('sessions and tokens in the database', () => {
  it('stores session cookies and tokens only as hashes', async () => {
    const db = getDb();
    const user = await createUser(db.sql, { username: uniqueName('s'), password: 'p', role: 'admin' });
    const session = await createSession(db.sql, user.id);
    const token = await generateToken(db.sql, user.id, { name: 't' });
    const sessions = await db.sql`select * from sessions where user_id = ${user.id}`;
    const tokens = await db.sql`select * from api_tokens where user_id = ${user.id}`;
    expect(JSON.stringify(sessions)).not.toContain(session.value);
    expect(sessions[0].id_hash).toBe(sha256(session.value));
    expect(JSON.stringify(tokens)).not.toContain(token.token);
    expect(tokens[0].token_hash).toBe(sha256(token.token));
    expect((await userForSession(db.sql, session.value))?.username).toBe(user.username);
    const check = await userForToken(db.sql, token.token);
    expect(check.ok && check.user.username).toBe(user.username);
  });

  it('expires sessions after SESSION_TTL_MS', async () => {
    const db = getDb();
    const user = await createUser(db.sql, { username: uniqueName('exp'), password: 'p', role: 'user' });
    const before = process.env.SESSION_TTL_MS;
    process.env.SESSION_TTL_MS = '1';
    try {
      const session = await createSession(db.sql, user.id);
      await new Promise((r) => setTimeout(r, 20));
      expect(await userForSession(db.sql, session.value)).toBeUndefined();
    } finally {
      process.env.SESSION_TTL_MS = before;
    }
  });

  it('reports an expired token as expired and an unknown one as invalid', async () => {
    const db = getDb();
    const user = await createUser(db.sql, { username: uniqueName('tok'), password: 'p', role: 'admin' });
    const token = await generateToken(db.sql, user.id, { period: 1 });
    await new Promise((r) => setTimeout(r, 20));
    expect(await userForToken(db.sql, token.token)).toEqual({ ok: false, reason: 'expired' });
    expect(await userForToken(db.sql, 'mmgis_unknown')).toEqual({ ok: false, reason: 'invalid' });
  });
});
