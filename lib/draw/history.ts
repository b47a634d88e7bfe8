import type { Queryable } from '#lib/db/index.ts';
import { notFound } from '#lib/errors.ts';

/** History snapshots (docs/draw.md): a file's content at time T is its latest snapshot at or before T. */
export interface Snapshot {
  history_id: number;
  time: number;
  action_index: number;
  history: number[];
  author: string | null;
}

/** The History tab's label of each action index: MMGIS's own `historyKey` (docs/draw.md). */
export const ACTIONS = [
  'Add',
  'Edit',
  'Delete',
  'Undo',
  'Publish',
  'Add (over)',
  'Merge',
  'Add (under)',
  'Split',
] as const;
export const Action = {
  add: 0,
  edit: 1,
  delete: 2,
  undo: 3,
  publish: 4,
  addOver: 5,
  merge: 6,
  addUnder: 7,
  split: 8,
} as const;

// `author` is the author's current username (null once that account is removed): docs/draw.md.
const cols = (q: Queryable) => q`history_id, time, action_index, to_jsonb(history) as history,
  (select u.username from users u where u.id = author_id) as author`;

/** The snapshot in force at `time` (default: the latest); `publishedOnly` considers publish snapshots. */
export async function snapshotAt(
  q: Queryable,
  fileId: number,
  time?: number,
  publishedOnly = false,
): Promise<Snapshot | null> {
  const [s] = await q<Snapshot[]>`
    select ${cols(q)} from draw_history
    where file_id = ${fileId}
      ${time === undefined ? q`` : q`and time <= ${time}`}
      ${publishedOnly ? q`and action_index = 4` : q``}
    order by time desc, history_id desc limit 1`;
  return s ?? null;
}

/** The latest snapshot's feature ids (an empty list for a file without history). */
export async function currentIds(q: Queryable, fileId: number): Promise<number[]> {
  return (await snapshotAt(q, fileId))?.history ?? [];
}

/**
 * Appends a snapshot. Call with the file row locked: `time` is now in epoch ms, but strictly after the
 * previous snapshot's, so every snapshot of a file has its own time (undo names one by it).
 */
export async function writeSnapshot(
  q: Queryable,
  fileId: number,
  action: number,
  history: number[],
  authorId: number | null,
): Promise<Snapshot> {
  const [s] = await q<Snapshot[]>`
    with last as (
      select max(history_id) as hid, max(time) as t from draw_history where file_id = ${fileId}
    )
    insert into draw_history (file_id, history_id, time, action_index, history, author_id)
    select ${fileId}, coalesce(last.hid + 1, 0),
      greatest((extract(epoch from clock_timestamp()) * 1000)::bigint, coalesce(last.t + 1, 0)),
      ${action}, ${history}::bigint[], ${authorId}
    from last
    returning ${cols(q)}`;
  return s;
}

export interface HistoryRow extends Snapshot {
  message: string;
}

export async function historyOf(q: Queryable, fileId: number): Promise<HistoryRow[]> {
  const rows = await q<Snapshot[]>`
    select ${cols(q)} from draw_history where file_id = ${fileId} order by time desc, history_id desc`;
  return rows.map((r) => ({ ...r, message: ACTIONS[r.action_index] ?? 'unknown' }));
}

/** The snapshot whose `time` is exactly `time`; 404 when none. */
export async function snapshotExactly(q: Queryable, fileId: number, time: number): Promise<Snapshot> {
  const [s] = await q<Snapshot[]>`
    select ${cols(q)} from draw_history where file_id = ${fileId} and time = ${time}
    order by history_id desc limit 1`;
  if (!s) throw notFound(`File ${fileId} has no history snapshot at time ${time}.`);
  return s;
}
