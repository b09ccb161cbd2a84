/**
 * A collection's name as the docs page says it: `work_orders` is "work orders", one of them
 * "a work order". Collection names are English plurals in snake case (define.ts), so a few
 * suffix rules give the singular; a name they miss reads a little oddly, never wrongly.
 */
export const pluralName = (name: string) => name.replace(/_/g, ' ');

export function singularName(name: string): string {
  const words = pluralName(name);
  if (/ies$/.test(words)) return words.replace(/ies$/, 'y');
  if (/(ss|sh|ch|x|z)es$/.test(words)) return words.replace(/es$/, '');
  if (/[^s]s$/.test(words)) return words.slice(0, -1);
  return words;
}

/** "a work order", "an asset". */
export const oneOf = (name: string) => {
  const one = singularName(name);
  return `${/^[aeiou]/.test(one) ? 'an' : 'a'} ${one}`;
};
