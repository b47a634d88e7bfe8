import type { Queryable } from '#lib/db/index.ts';

/**
 * Compile (docs/draw.md): the mission-planning hierarchy of the master files' features at a time, the
 * issues that block publishing, and the changes since the last publish. Containment is decided by
 * PostGIS (`ST_Covers` of the parent buffered by 5e-6 degrees); JavaScript only assembles the tree.
 */
export const PARENT: Record<string, string> = {
  campaign: 'roi',
  campsite: 'campaign',
  trail: 'campsite',
  signpost: 'campsite',
};
const TOLERANCE = 5e-6;

/** The compiled features of the master files at `time`: a CTE fragment named `feats`. */
export function featsCte(q: Queryable, time: number) {
  return q`
    with snap as (
      select distinct on (h.file_id) h.file_id, h.history
      from draw_history h join draw_files m on m.id = h.file_id and m.is_master
      where h.time <= ${time}
      order by h.file_id, h.time desc, h.history_id desc
    ),
    feats as (
      select f.id, f.file_id, f.level, coalesce(f.intent, m.intent) as intent, f.properties, f.geom,
        f.properties->>'name' as name, f.properties->>'uuid' as uuid
      from snap join draw_features f on f.id = any(snap.history) join draw_files m on m.id = f.file_id
      where coalesce(f.intent, m.intent) in ('roi', 'campaign', 'campsite', 'trail', 'signpost')
    )`;
}

export interface Node {
  id: number;
  intent: string;
  name: string | null;
  uuid: string | null;
  children: Node[];
}
export interface Issue {
  severity: 'error' | 'warning';
  antecedent: { id: number; intent: string; name: string | null };
  message: string;
}
export interface Changes {
  added: string[];
  removed: string[];
  changed: string[];
}
export interface Compiled {
  hierarchy: Node[];
  issues: Issue[];
  changes: Changes | false;
  features?: unknown;
}

export async function compile(q: Queryable, time: number, verbose = false): Promise<Compiled> {
  const rows = await q<
    { id: number; intent: string; name: string | null; uuid: string | null; parents: number[] }[]
  >`
    ${featsCte(q, time)}
    select c.id, c.intent, c.name, c.uuid,
      coalesce((
        select jsonb_agg(p.id order by p.id) from feats p
        where p.intent = (case c.intent when 'campaign' then 'roi' when 'campsite' then 'campaign'
                            when 'trail' then 'campsite' when 'signpost' then 'campsite' end)
          and p.geom && ST_Expand(c.geom, ${TOLERANCE})
          and ST_Covers(ST_Buffer(p.geom, ${TOLERANCE}), c.geom)
      ), '[]'::jsonb) as parents
    from feats c
    order by c.id`;

  const nodes = new Map<number, Node>();
  for (const r of rows)
    nodes.set(r.id, { id: r.id, intent: r.intent, name: r.name, uuid: r.uuid, children: [] });
  const issues: Issue[] = [];
  const hierarchy: Node[] = [];
  for (const r of rows) {
    const node = nodes.get(r.id)!;
    const antecedent = { id: r.id, intent: r.intent, name: r.name };
    if (r.intent === 'roi') {
      hierarchy.push(node);
      continue;
    }
    const parent = PARENT[r.intent];
    if (r.parents.length === 1) nodes.get(r.parents[0])!.children.push(node);
    else if (r.parents.length === 0) {
      issues.push({
        severity: 'error',
        antecedent,
        message: `${label(r)} does not lie inside any ${parent}.`,
      });
    } else {
      issues.push({
        severity: 'error',
        antecedent,
        message: `${label(r)} lies inside ${r.parents.length} ${parent}s (${r.parents.join(', ')}); it must lie inside exactly one.`,
      });
    }
  }
  for (const key of ['name', 'uuid'] as const) {
    const seen = new Map<string, number>();
    for (const r of rows) {
      const v = r[key];
      if (v === null) continue;
      const k = `${r.intent}\u0000${v}`;
      if (seen.has(k)) {
        issues.push({
          severity: key === 'uuid' ? 'error' : 'warning',
          antecedent: { id: r.id, intent: r.intent, name: r.name },
          message: `${label(r)} has the same ${key} as ${r.intent} ${seen.get(k)}.`,
        });
      } else seen.set(k, r.id);
    }
  }
  const result: Compiled = { hierarchy, issues, changes: await changes(q, time) };
  if (verbose) {
    const [f] = await q<{ fc: unknown }[]>`
      ${featsCte(q, time)}
      select jsonb_build_object('type', 'FeatureCollection', 'features', coalesce(jsonb_agg(jsonb_build_object(
        'type', 'Feature', 'properties', properties || jsonb_build_object('_', jsonb_build_object(
          'id', id, 'file_id', file_id, 'level', level, 'intent', intent)),
        'geometry', ST_AsGeoJSON(geom, 15)::jsonb) order by id), '[]'::jsonb)) as fc from feats`;
    result.features = f.fc;
  }
  return result;
}

const label = (r: { id: number; intent: string; name: string | null }) =>
  `${r.intent[0].toUpperCase()}${r.intent.slice(1)} ${r.name === null ? r.id : `'${r.name}' (${r.id})`}`;

/** Differences by uuid between the compiled features at `time` and the last publish; false if none. */
async function changes(q: Queryable, time: number): Promise<Changes | false> {
  const [last] = await q<{ id: number }[]>`select id from draw_publishes order by id desc limit 1`;
  if (!last) return false;
  const [r] = await q<Changes[]>`
    ${featsCte(q, time)},
    pub as (select properties->>'uuid' as uuid, properties, geom from draw_published_features where publish_id = ${last.id})
    select
      coalesce((select jsonb_agg(distinct c.uuid) from feats c
        where c.uuid is not null and not exists (select 1 from pub where pub.uuid = c.uuid)), '[]') as added,
      coalesce((select jsonb_agg(distinct p.uuid) from pub p
        where p.uuid is not null and not exists (select 1 from feats c where c.uuid = p.uuid)), '[]') as removed,
      coalesce((select jsonb_agg(distinct c.uuid) from feats c join pub p on p.uuid = c.uuid
        where c.properties <> p.properties or not ST_Equals(c.geom, p.geom)), '[]') as changed`;
  return r;
}
