import { describe, expect, it } from 'vitest';
import type { TablePlan, TenantPlan } from '../engine/schema/index.ts';
import { migratedLine, planText } from './migrate-plan-text.ts';

const NOTHING = {
  create: false,
  renameColumns: [],
  addColumns: [],
  addIndexes: [],
  dropIndexes: [],
  keptColumns: [],
  refusals: [],
  curable: [],
};
const table = (resource: string, plan: Partial<TablePlan> = {}): TablePlan => ({ resource, ...NOTHING, ...plan });

const RENAME: TenantPlan = {
  tenant: 'demo.main',
  tables: [
    table('notes'),
    table('work_orders', {
      renameColumns: [{ from: 'location', to: 'place' }],
      addColumns: [{ name: 'serial', kind: 'string', notNull: false, default: 'n/a' }],
      addIndexes: [{ name: 'work_orders_place_idx', columns: ['place'] }],
      dropIndexes: ['work_orders_location_idx'],
      keptColumns: ['old_code'],
    }),
  ],
};

describe('planText', () => {
  it('lists, per resource, what migrate would do, with the columns it keeps', () => {
    expect(planText(RENAME)).toBe(
      [
        'tenant demo.main',
        '  notes: nothing to change',
        '  work_orders:',
        '    rename column location to place (its data kept)',
        '    add column serial (string, existing rows get "n/a")',
        '    add index work_orders_place_idx on (place)',
        '    drop index work_orders_location_idx (replaced)',
        '    keep column old_code: no field names it (never dropped)',
      ].join('\n'),
    );
  });

  it('puts refusals first, one line each as the plan words them', () => {
    const refused: TenantPlan = {
      tenant: 'a.b',
      tables: [
        table('work_orders', {
          refusals: ['resource work_orders: field serial: is new and required, ...'],
          addColumns: [{ name: 'serial', kind: 'string', notNull: false }],
        }),
      ],
    };
    expect(planText(refused).split('\n')).toEqual([
      'tenant a.b',
      '  work_orders:',
      '    REFUSED resource work_orders: field serial: is new and required, ...',
      '    add column serial (string)',
    ]);
  });

  it('says so when a table would be made', () => {
    const made = { tenant: 'a.b', tables: [table('notes', { create: true, addColumns: RENAME.tables[1]!.addColumns, addIndexes: [] })] };
    expect(planText(made)).toBe('tenant a.b\n  notes:\n    create table with 1 column and 0 indexes');
  });
});

describe('migratedLine', () => {
  it('says on one line what was done, per resource', () => {
    expect(migratedLine(RENAME)).toBe(
      'migrated demo.main: work_orders: renamed column location to place (its data kept); work_orders: added column serial (string, existing rows get "n/a"); ' +
        'work_orders: added index work_orders_place_idx on (place); work_orders: dropped index work_orders_location_idx (replaced); ' +
        'work_orders: kept column old_code: no field names it (never dropped)',
    );
    expect(migratedLine({ tenant: 'a.b', tables: [table('notes')] })).toBe('migrated a.b: nothing to change');
  });
});
