import { defineResource, integer, string } from '../engine/define.ts';

export default defineResource({
  name: 'notes',
  group: 'maintenance',
  description: 'A note on a work order.',
  fields: {
    work_order_id: integer({ required: true, filterable: true, parent: 'work_orders' }),
    note: string({ required: true, filterable: true }),
  },
});
