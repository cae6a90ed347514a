/**
 * V8 takes a field that has held one value since its object was made for a
 * constant: optimized code that reads it embeds the value, and the field's first
 * store of another value throws that code away. Fields that code reads on every
 * call but that change only when a run stops (the compiled tier's unwinding flag,
 * the driver's saved frame) get a second value here, before any code reads them
 * (docs/decisions/s58-01-fields-mutable-before-compiled-code-runs.md).
 */
export function makeMutable<T extends object>(o: T, fields: readonly (keyof T & string)[]): void {
  const r = o as unknown as Record<string, number>;
  for (const f of fields) {
    const v = r[f]!;
    r[f] = v + 1;
    r[f] = v;
  }
}
