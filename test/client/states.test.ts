import { describe, expect, it } from 'vitest';
import { Conflict, Unprocessable, type CollectionTypes } from '../../client/index.ts';
import { defineResource, string } from '../../engine/define.ts';
import { DATABASES } from '../support/harness.ts';
import { servedService } from '../support/client-service.ts';

const jobs = defineResource({
  name: 'jobs',
  fields: {
    title: string({ required: true }),
    stage: string({ states: { open: ['started', 'cancelled'], started: ['done'], done: [], cancelled: [] }, default: 'open' }),
  },
});

type Stage = 'open' | 'started' | 'done' | 'cancelled';
interface Jobs extends CollectionTypes {
  readonly record: { id: number; title: string; stage: Stage };
  readonly create: { title: string; stage?: Stage };
  readonly patch: { title?: string; stage?: Stage };
  readonly put: { title: string; stage?: Stage };
  readonly filters: object;
  readonly orderBy: string;
  readonly linked: object;
  readonly fields: string;
}

/** A fetch that counts the PATCHes it sends. */
function counting() {
  let patches = 0;
  const f: typeof fetch = (input, init) => ((patches += init?.method === 'PATCH' ? 1 : 0), fetch(input, init));
  return { fetch: f, patches: () => patches };
}

for (const db of DATABASES) {
  describe(`states through the client [${db}]`, () => {
    const served = servedService(db, { resources: [jobs] });

    it('a disallowed transition is a typed 409 with the server problem details, sent once; an allowed one goes through', async () => {
      const net = counting();
      const client = served().client<{ jobs: Jobs }>({ fetch: net.fetch });
      const list = client.collection('jobs');
      const job = await list.create({ title: 'pump' });
      expect(job.stage).toBe('open');
      const refused = await list.patch(job, { stage: 'done' }).catch((e) => e);
      expect(refused).toBeInstanceOf(Conflict);
      expect(refused.status).toBe(409);
      expect(refused.problem).toEqual({
        type: 'urn:maintenance-records:problem:invalid-transition',
        title: 'Transition not allowed',
        status: 409,
        detail: 'The record may not move to that state: see errors.',
        errors: [{ field: 'stage', message: 'may not move from open to done: from open it may move to started or cancelled' }],
      });
      expect(net.patches()).toBe(1);
      expect((await list.get(job.id)).stage).toBe('open');
      const started = await list.patch(job, { stage: 'started' });
      expect(started.stage).toBe('started');
      // A value that is no state at all is a 422 (and a type error: test/client/types.test.ts).
      const unknown = await list.patch(started, { stage: 'archived' as Stage }).catch((e) => e);
      expect(unknown).toBeInstanceOf(Unprocessable);
      expect(unknown.problem.errors).toEqual([
        { field: 'stage', message: expect.stringMatching(/^must be one of the states open, started/) },
      ]);
    });
  });
}
