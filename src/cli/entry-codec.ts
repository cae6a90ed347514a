/**
 * The compile cache's file format (compile-cache.ts): an entry's object tree as JSON,
 * with its typed arrays' bytes after it. `node:v8`'s serializer would do the same job,
 * but loading `node:v8` loads Node's stream modules with it, at every start of a run
 * that reads the cache (docs/decisions/s66-01-start-up-without-node-v8.md).
 *
 * A file is the magic `MVC1`, the JSON's byte length (u32, little-endian), the JSON,
 * then each typed array's bytes, 8-aligned, in the order the JSON names them. The JSON
 * stands a typed array in as `{"$a":[kind, offset, length]}`, a Map as `{"$m":[[k, v], ...]}`,
 * and a number JSON cannot hold (NaN, the infinities, -0) as `{"$n":"..."}`; a plain
 * object with such a key is not expected in an entry and is refused on writing.
 */

const MAGIC = 0x3143564d; // 'MVC1' read little-endian
const HEAD_BYTES = 8;

const ARRAYS = { Int32Array, Uint8Array, Float64Array, Uint32Array } as const;
type ArrayKind = keyof typeof ARRAYS;
type AnyArray = InstanceType<(typeof ARRAYS)[ArrayKind]>;

const TAGS = ['$a', '$m', '$n'];

function arrayKind(value: object): ArrayKind | undefined {
  for (const kind of Object.keys(ARRAYS) as ArrayKind[]) if (value instanceof ARRAYS[kind]) return kind;
  return undefined;
}

/** The entry as bytes. Throws on a value it cannot keep (a function, a class instance
 *  other than the typed arrays and Map, a tagged key). */
export function encodeEntry(value: unknown): Uint8Array {
  const blobs: AnyArray[] = [];
  let offset = 0;
  const json = JSON.stringify(value, function (this: unknown, key: string) {
    // The holder's own value: JSON.stringify has already applied toJSON (a Buffer's makes
    // an array of numbers) and turned -0 into 0 before a replacer sees it.
    const v = (this as Record<string, unknown>)[key];
    if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0) ? v : { $n: Object.is(v, -0) ? '-0' : String(v) };
    if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') throw new TypeError(`encodeEntry: cannot keep a ${typeof v}`);
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Map) return { $m: [...v] };
    const kind = arrayKind(v);
    if (kind !== undefined) {
      const a = v as AnyArray;
      offset = (offset + 7) & ~7;
      const at = offset;
      blobs.push(a);
      offset += a.byteLength;
      return { $a: [kind, at, a.length] };
    }
    if (Array.isArray(v)) return v;
    if (Object.getPrototypeOf(v) !== Object.prototype) throw new TypeError(`encodeEntry: cannot keep a ${(v as object).constructor?.name ?? 'object'}`);
    for (const tag of TAGS) if (tag in v) throw new TypeError(`encodeEntry: an object with the key ${tag}`);
    return v;
  });
  const text = new TextEncoder().encode(json);
  const start = (HEAD_BYTES + text.length + 7) & ~7;
  const out = new Uint8Array(start + offset);
  const head = new DataView(out.buffer);
  head.setUint32(0, MAGIC, true);
  head.setUint32(4, text.length, true);
  out.set(text, HEAD_BYTES);
  let at = 0;
  for (const a of blobs) {
    at = (at + 7) & ~7;
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), start + at);
    at += a.byteLength;
  }
  return out;
}

/** The entry `encodeEntry` wrote; throws on bytes that are not one. */
export function decodeEntry(bytes: Uint8Array): unknown {
  if (bytes.length < HEAD_BYTES) throw new RangeError('decodeEntry: too short');
  const head = new DataView(bytes.buffer, bytes.byteOffset, HEAD_BYTES);
  if (head.getUint32(0, true) !== MAGIC) throw new RangeError('decodeEntry: not an entry');
  const length = head.getUint32(4, true);
  if (HEAD_BYTES + length > bytes.length) throw new RangeError('decodeEntry: truncated');
  const start = (HEAD_BYTES + length + 7) & ~7;
  const text = new TextDecoder().decode(bytes.subarray(HEAD_BYTES, HEAD_BYTES + length));
  return JSON.parse(text, (_key, v: unknown) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
    const o = v as Record<string, unknown>;
    if ('$n' in o) return Number(o['$n']);
    if ('$m' in o) return new Map(o['$m'] as [unknown, unknown][]);
    if ('$a' in o) {
      const [kind, at, n] = o['$a'] as [ArrayKind, number, number];
      const Ctor = ARRAYS[kind];
      if (Ctor === undefined) throw new RangeError(`decodeEntry: unknown array kind ${String(kind)}`);
      const from = start + at;
      const to = from + n * Ctor.BYTES_PER_ELEMENT;
      if (to > bytes.length) throw new RangeError('decodeEntry: truncated');
      // A copy, in a buffer of its own aligned for the kind (Uint8Array's slice: a Buffer's
      // would be a view of the file's whole buffer).
      return new Ctor(Uint8Array.prototype.slice.call(bytes, from, to).buffer);
    }
    return v;
  });
}
