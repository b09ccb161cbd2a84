import { defineResource, integer, string } from '../engine/define.ts';

export default defineResource({
  name: 'work_orders',
  group: 'maintenance',
  description: 'A unit of maintenance work, optionally raised by a service request.',
  fields: {
    department_id: integer({ required: true, filterable: true }),
    work_order_type_id: integer({ required: true, filterable: true }),
    work_order_type_group_id: integer({ required: true, filterable: true }),
    priority: integer({ nullable: true, filterable: true }),
    status: string({ default: 'open', maxLength: 64, filterable: true }),
    description: string({ nullable: true }),
    service_request_id: integer({ nullable: true, filterable: true, parent: 'service_requests' }),
  },
  // Work orders are mostly searched by department and status together.
  indexes: [['department_id', 'status']],
  files: {},
});
