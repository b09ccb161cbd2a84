import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import inspections from '../../examples/states/inspections.ts';
import { makeRole } from '../support/auth.ts';
import { BASE, describeEachDatabase, M, type Harness } from '../support/harness.ts';

const I = `${M}/inspections`;
const field = inspections.fields.status;
const MOVES: Readonly<Record<string, readonly string[]>> = field.states;
const STATES = Object.keys(MOVES);
const ROLES = ['admin', 'supervisor', 'inspector'] as const;
/** BATCH: the move as the one PATCH of a batch (SPEC 10), whose answer is the operation's status when it fails. */
const METHODS = ['PATCH', 'PUT', 'BATCH'] as const;
type Role = (typeof ROLES)[number];

/** A shortest way from the initial state to each state (breadth first over the declaration). */
const PATHS = new Map<string, string[]>([[field.default, []]]);
for (const queue = [field.default as string]; queue.length;) {
  const at = queue.shift()!;
  for (const next of MOVES[at]!) if (!PATHS.has(next)) (PATHS.set(next, [...PATHS.get(at)!, next]), queue.push(next));
}

/** What the declaration says a move answers, written from SPEC 11 (not from the engine's code). */
function expected(from: string, to: string, role: Role, filled: boolean): number {
  if (from === to) return 200;
  if (!MOVES[from]!.includes(to)) return 409;
  const rule = (field.enter as Record<string, { roles?: readonly string[]; requires?: readonly string[] }>)[to];
  if (rule?.roles && !rule.roles.includes(role)) return 403;
  if (rule?.requires?.length && !filled) return 422;
  return 200;
}

describeEachDatabase(
  'every (from, to, role) of a declared machine, through PATCH, PUT and batch (SPEC 11)',
  (h) => {
    const as = new Map<Role, Harness>();
    beforeAll(async () => {
      await makeRole(h().service, 'demo.main', 'inspector', [{ collection: 'inspections', action: '*' }]);
      await makeRole(h().service, 'demo.main', 'supervisor', [{ collection: 'inspections', action: '*' }]);
      for (const role of ROLES) as.set(role, h().as((await h().login({ username: `u_${role}`, roles: [role] })).token));
    });

    it('the API allows exactly the moves the declaration allows', async () => {
      expect(PATHS.size).toBe(STATES.length); // every state is reachable, so every triple is tried
      const triple = fc.record({
        from: fc.constantFrom(...STATES),
        to: fc.constantFrom(...STATES),
        role: fc.constantFrom(...ROLES),
        method: fc.constantFrom(...METHODS),
        filled: fc.boolean(),
      });
      // Every triple by each method with the required fields set, then random ones (also unset); fast-check counts the examples among numRuns.
      const every = STATES.flatMap((from) =>
        STATES.flatMap((to) => ROLES.flatMap((role) => METHODS.map((method) => ({ from, to, role, method, filled: true })))),
      );
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(triple, async ({ from, to, role, method, filled }) => {
          const full = { site: 'plant', inspector: 'ana', findings: 'fine' };
          const { id } = (await h().post(I, full)).body;
          for (const step of PATHS.get(from)!) expect((await h().patch(`${I}/${id}`, { status: step })).status).toBe(200);
          const body = filled
            ? { ...full, status: to }
            : { site: 'plant', status: to, ...(method !== 'PUT' ? { inspector: null, findings: null } : {}) };
          runs++;
          const r =
            method === 'BATCH'
              ? await as.get(role)!.request('POST', `${BASE}/batch`, {
                  body: { operations: [{ method: 'PATCH', path: `/maintenance/inspections/${id}`, body }] },
                })
              : await as.get(role)!.request(method, `${I}/${id}`, { body });
          const status = expected(from, to, role, filled);
          expect(r.status, `${method} ${from} -> ${to} as ${role} (${filled ? 'filled' : 'unset'}): ${r.text}`).toBe(status);
          expect((await h().get(`${I}/${id}`)).body.status).toBe(status === 200 ? to : from);
        }),
        { examples: every.map((e) => [e] as [typeof e]), numRuns: every.length + 60 },
      );
      expect(runs).toBe(every.length + 60);
    }, 300_000);
  },
  { resources: [inspections] },
);
