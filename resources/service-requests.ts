import { defineResource, integer, string } from '../engine/define.ts';

export default defineResource({
  name: 'service_requests',
  group: 'maintenance',
  description: 'A request for service; the work orders it raised are its child collection.',
  fields: {
    description: string({ required: true }),
    status: string({ default: 'new', maxLength: 64, filterable: true }),
    department_id: integer({ nullable: true, filterable: true }),
  },
  files: {},
});
