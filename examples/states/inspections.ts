import { defineResource, integer, string } from '../../engine/define.ts';

/**
 * A collection whose records move through declared states (SPEC 11). To serve it, copy this file
 * into resources/ and change the import to '../engine/define.ts' (docs/states.md).
 */
export default defineResource({
  name: 'inspections',
  description: 'An inspection of a site: scheduled, then carried out, then signed off.',
  fields: {
    site: string({ required: true, filterable: true, maxLength: 200 }),
    inspector: string({ nullable: true, filterable: true }),
    findings: string({ nullable: true }),
    work_order_id: integer({ nullable: true, filterable: true }),
    status: string({
      default: 'scheduled',
      filterable: true,
      states: {
        scheduled: ['in_progress', 'cancelled'],
        in_progress: ['on_hold', 'done'],
        on_hold: ['in_progress', 'cancelled'],
        done: ['signed_off', 'in_progress'],
        signed_off: [],
        cancelled: [],
      },
      enter: {
        in_progress: { requires: ['inspector'] },
        done: { requires: ['findings'] },
        signed_off: { roles: ['admin', 'supervisor'] },
      },
    }),
  },
});
