/**
 * Named prepared statements behind the transaction-mode pooler (scripts/connectionPooler.ts), the way
 * PgBouncer keeps them: a client prepares a statement once per session, but its next transaction may run
 * on another server connection. So the server-side name is derived from the statement itself (a hash of
 * its text and parameter types), shared by every client: each server connection prepares each statement
 * once and keeps its plan. Before a Bind or Describe on a server connection that has not prepared it yet,
 * the pooler sends the Parse itself and removes that Parse's ParseComplete from the answers the client
 * sees. Which answers to remove follows from the protocol's order: every Parse answers ParseComplete ('1')
 * and every Close CloseComplete ('3') in order, unless an ErrorResponse skipped them up to the next Sync.
 */

import { createHash } from 'node:crypto';
import { message } from './pgUpstream.ts';
import { ProtocolFramer } from './protocolFramer.ts';

const PARSE = 0x50;
const BIND = 0x42;
const DESCRIBE = 0x44;
const CLOSE = 0x43;
const PARSE_COMPLETE = 0x31;
const CLOSE_COMPLETE = 0x33;
const ERROR = 0x45;
const READY = 0x5a;
/** Messages answered by exactly one ReadyForQuery: Sync, simple Query, FunctionCall. */
const SYNCS = new Set([0x53, 0x51, 0x46]);

interface Expected {
  /** ParseComplete, CloseComplete or the ReadyForQuery of a Sync. */
  kind: number;
  /** Sent by the pooler: the client must not see its answer. */
  injected: boolean;
  /** The server-side statement a Parse prepares. */
  name?: string;
}

/** What the pooler knows about one server connection's session. */
export class ServerSession {
  readonly framer = new ProtocolFramer();
  readonly prepared = new Map<string, 'pending' | 'ready'>();
  private expected: Expected[] = [];
  /** An error skipped the rest of the group and its Sync has not been sent yet. */
  private skipping = false;

  expect(e: Expected) {
    if (e.kind === READY) this.skipping = false;
    else if (this.skipping) {
      if (e.name) this.prepared.delete(e.name);
      return;
    }
    if (e.name) this.prepared.set(e.name, 'pending');
    this.expected.push(e);
  }

  /** Nothing is owed: the session may go to another client. */
  settled(): boolean {
    return this.expected.length === 0 && this.framer.atBoundary();
  }

  /**
   * Scans the server's answer; returns what the client sees (without injected answers) and how many
   * ReadyForQuery messages it held.
   */
  answer(chunk: Buffer): { out: Buffer; readies: number } {
    const cuts: number[] = [];
    let readies = 0;
    const out = this.framer.scan(chunk, (type, offset) => {
      if (type === PARSE_COMPLETE || type === CLOSE_COMPLETE) {
        const e = this.expected.shift();
        if (e?.name && type === PARSE_COMPLETE) this.prepared.set(e.name, 'ready');
        if (e?.injected) cuts.push(offset);
      } else if (type === ERROR) {
        while (this.expected.length > 0 && this.expected[0].kind !== READY) {
          const e = this.expected.shift()!;
          if (e.name) this.prepared.delete(e.name);
        }
        if (this.expected.length === 0) this.skipping = true;
      } else if (type === READY) {
        readies++;
        if (this.expected[0]?.kind === READY) this.expected.shift();
      }
    });
    if (cuts.length === 0) return { out, readies };
    const parts: Buffer[] = [];
    let from = 0;
    for (const at of cuts) {
      parts.push(out.subarray(from, at));
      from = at + 5;
    }
    parts.push(out.subarray(from));
    return { out: Buffer.concat(parts), readies };
  }
}

const cstringAt = (m: Buffer, at: number) => {
  const end = m.indexOf(0, at);
  return { text: m.toString('utf8', at, end), next: end + 1 };
};
const cstring = (s: string) => Buffer.from(`${s}\0`, 'utf8');
const parseMessage = (name: string, rest: Buffer) => message('P', Buffer.concat([cstring(name), rest]));
const closeStatement = (name: string) => message('C', Buffer.concat([Buffer.from('S'), cstring(name)]));

/** The server-side name of a statement: the same text and parameter types give the same name. */
const sharedName = (rest: Buffer) => `mmgis_${createHash('sha1').update(rest).digest('hex')}`;

/** One client session's named statements: its names, the server-side names and their Parse bodies. */
export class ClientStatements {
  private statements = new Map<string, { name: string; rest: Buffer }>();

  /**
   * The bytes to send to `s` for one whole client message `m`: the message with its statement name
   * replaced, after any Parse (or Close) the server session needs first. Returns whether `m` is answered
   * by a ReadyForQuery.
   */
  route(m: Buffer, s: ServerSession, out: Buffer[]): boolean {
    const type = m[0];
    if (SYNCS.has(type)) {
      s.expect({ kind: READY, injected: false });
      out.push(m);
      return true;
    }
    if (type === PARSE) {
      const { text, next } = cstringAt(m, 5);
      if (!text) {
        s.expect({ kind: PARSE_COMPLETE, injected: false });
        out.push(m);
        return false;
      }
      const rest = Buffer.from(m.subarray(next));
      const st = { name: sharedName(rest), rest };
      this.statements.set(text, st);
      // Prepared here already (by another client): prepare it again, as the client asked.
      if (s.prepared.has(st.name)) {
        s.prepared.delete(st.name);
        s.expect({ kind: CLOSE_COMPLETE, injected: true });
        out.push(closeStatement(st.name));
      }
      s.expect({ kind: PARSE_COMPLETE, injected: false, name: st.name });
      out.push(parseMessage(st.name, st.rest));
      return false;
    }
    if (type === BIND) {
      const portal = cstringAt(m, 5);
      const stmt = cstringAt(m, portal.next);
      if (!stmt.text) out.push(m);
      else {
        const name = this.ensure(stmt.text, s, out);
        out.push(message('B', Buffer.concat([cstring(portal.text), cstring(name), m.subarray(stmt.next)])));
      }
      return false;
    }
    if ((type === DESCRIBE || type === CLOSE) && m[5] === 0x53 /* 'S' */) {
      const { text } = cstringAt(m, 6);
      if (!text) {
        if (type === CLOSE) s.expect({ kind: CLOSE_COMPLETE, injected: false });
        out.push(m);
        return false;
      }
      if (type === DESCRIBE) {
        out.push(message('D', Buffer.concat([Buffer.from('S'), cstring(this.ensure(text, s, out))])));
        return false;
      }
      // Close: the client forgets it; the server keeps it for other clients (closing a name that does not
      // exist answers CloseComplete, as the client expects).
      this.statements.delete(text);
      s.expect({ kind: CLOSE_COMPLETE, injected: false });
      out.push(closeStatement('mmgis_pooler_closed'));
      return false;
    }
    if (type === CLOSE) s.expect({ kind: CLOSE_COMPLETE, injected: false });
    out.push(m);
    return false;
  }

  /** The server-side name of client statement `text`, prepared on `s` first if it is not there yet. */
  private ensure(text: string, s: ServerSession, out: Buffer[]): string {
    const st = this.statements.get(text);
    if (!st) return text; // unknown: the server answers "prepared statement does not exist"
    if (!s.prepared.has(st.name)) {
      s.expect({ kind: PARSE_COMPLETE, injected: true, name: st.name });
      out.push(parseMessage(st.name, st.rest));
    }
    return st.name;
  }
}
