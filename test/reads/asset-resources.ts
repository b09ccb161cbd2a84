import { boolean, date, defineResource, integer, number, string } from '../../engine/define.ts';
import notes from '../../resources/notes.ts';
import serviceRequests from '../../resources/service-requests.ts';
import workOrders from '../../resources/work-orders.ts';

/** The real API's root-level `/assets`, in the group `''`. */
export const assets = defineResource({
  name: 'assets',
  group: '',
  description: 'An asset of a profile.',
  fields: {
    profile_id: integer({ required: true, filterable: true }),
    tag: string({ required: true, filterable: true, maxLength: 64 }),
    cost_cents: integer({ nullable: true, filterable: true }),
    cost: number({ nullable: true, filterable: true }),
    in_service: boolean({ default: true, filterable: true }),
    installed: date({ nullable: true, filterable: true }),
  },
});

/** An asset's attributes: a child collection whose name in `$linked` is `Attributes`. */
export const attributes = defineResource({
  name: 'attributes',
  group: '',
  linkedName: 'Attributes',
  fields: {
    asset_id: integer({ required: true, filterable: true, parent: 'assets' }),
    name: string({ required: true, filterable: true }),
    value: string({ nullable: true }),
  },
});

/** The real API's `/am/profiles`: a collection in the group `am`. */
export const profiles = defineResource({
  name: 'profiles',
  group: 'am',
  fields: { title: string({ required: true, filterable: true }) },
  files: {},
});

/** The shipped collections beside a root-level and an `am` group. */
export const ASSET_RESOURCES = [workOrders, notes, serviceRequests, assets, attributes, profiles];
