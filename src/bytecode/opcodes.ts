/**
 * The opcode table: the single source of truth for the bytecode (as Wren's
 * wren_opcodes.h is). The numeric enum, the operand counts the compiler and the
 * disassembler rely on, and the one-line docs all come from this list.
 *
 * The machine has two operand stacks: a value stack (Float64Array; ints, bools and
 * floats) and a reference stack (Int32Array; heap addresses). Keeping references on
 * their own stack makes the roots exact without stack maps: every live reference of
 * every frame lies in refStack[0 .. rsp). Stack effects below are written
 * "v:" for the value stack and "r:" for the reference stack.
 *
 * Every instruction that allocates is restartable: it reads its operands, allocates,
 * and only then pops. When the heap asks for a collection the interpreter unwinds to
 * its driver with the pc still on that instruction and runs it again afterwards.
 */

const table = [
  // name, operands, doc
  ['NOP', 0, 'does nothing'],
  ['ICONST', 1, 'v: -> k (an int or bool literal)'],
  ['FCONST', 1, 'v: -> floatConstants[k]'],
  ['SCONST', 1, 'r: -> the interned string constant k'],
  ['NULL', 0, 'r: -> null'],
  ['VLOAD', 1, 'v: -> locals[k] (value slot of the frame)'],
  ['VSTORE', 1, 'v: x -> ; stores into value slot k'],
  ['RLOAD', 1, 'r: -> locals[k] (reference slot of the frame)'],
  ['RSTORE', 1, 'r: x -> ; stores into reference slot k'],
  ['GVLOAD', 1, 'v: -> global value k'],
  ['GVSTORE', 1, 'v: x -> ; stores global value k'],
  ['GRLOAD', 1, 'r: -> global reference k'],
  ['GRSTORE', 1, 'r: x -> ; stores global reference k'],
  ['VPOP', 0, 'v: x ->'],
  ['RPOP', 0, 'r: x ->'],
  ['RDUP', 0, 'r: x -> x x'],
  ['IADD', 0, 'v: a b -> a+b (wraps to 32 bits)'],
  ['ISUB', 0, 'v: a b -> a-b (wraps)'],
  ['IMUL', 0, 'v: a b -> a*b (wraps)'],
  ['IDIV', 0, 'v: a b -> a/b truncated; division by zero is a runtime error'],
  ['IMOD', 0, 'v: a b -> a%b; modulo by zero is a runtime error'],
  ['INEG', 0, 'v: a -> -a (wraps)'],
  ['IAND', 0, 'v: a b -> a&b'],
  ['IOR', 0, 'v: a b -> a|b'],
  ['IXOR', 0, 'v: a b -> a^b'],
  ['ISHL', 0, 'v: a b -> a<<b'],
  ['ISHR', 0, 'v: a b -> a>>b'],
  ['IUSHR', 0, 'v: a b -> a>>>b, as an int'],
  ['INOT', 0, 'v: a -> ~a'],
  ['FADD', 0, 'v: a b -> a+b'],
  ['FSUB', 0, 'v: a b -> a-b'],
  ['FMUL', 0, 'v: a b -> a*b'],
  ['FDIV', 0, 'v: a b -> a/b (IEEE: x/0 is infinite or NaN)'],
  ['FMOD', 0, 'v: a b -> a%b (IEEE remainder of truncated division)'],
  ['FNEG', 0, 'v: a -> -a'],
  ['I2F', 0, 'v: a -> a as float'],
  ['F2I', 0, 'v: a -> toInt(a); NaN or out of range is a runtime error'],
  ['LT', 0, 'v: a b -> a<b (ints and floats alike: both are doubles on the stack)'],
  ['LE', 0, 'v: a b -> a<=b'],
  ['GT', 0, 'v: a b -> a>b'],
  ['GE', 0, 'v: a b -> a>=b'],
  ['EQ', 0, 'v: a b -> a==b'],
  ['NE', 0, 'v: a b -> a!=b'],
  ['NOT', 0, 'v: a -> !a'],
  ['REQ', 0, 'r: a b -> ; v: -> a==b (identity)'],
  ['RNE', 0, 'r: a b -> ; v: -> a!=b (identity)'],
  ['SEQ', 0, 'r: a b -> ; v: -> a==b (string contents; null equals only null)'],
  ['SNE', 0, 'r: a b -> ; v: -> a!=b (string contents)'],
  ['JMP', 1, 'pc += k (relative to the next instruction)'],
  ['JMPF', 1, 'v: c -> ; jumps by k if c is false'],
  ['JMPT', 1, 'v: c -> ; jumps by k if c is true'],
  ['NEW', 1, 'r: -> a new zeroed instance of class k (allocates)'],
  ['NEWARRAY', 1, 'v: n -> ; r: -> a new array of array type k (allocates; negative n is a runtime error)'],
  ['GETFIELD_V', 1, 'r: o -> ; v: -> the int/bool field at word offset k'],
  ['GETFIELD_F', 1, 'r: o -> ; v: -> the float field at word offset k'],
  ['GETFIELD_R', 1, 'r: o -> the reference field at word offset k'],
  ['PUTFIELD_V', 1, 'r: o -> ; v: x -> ; stores the int/bool field at offset k'],
  ['PUTFIELD_F', 1, 'r: o -> ; v: x -> ; stores the float field at offset k'],
  ['PUTFIELD_R', 2, 'r: o x -> ; stores reference field at offset k0, edge k1, through the write barrier'],
  ['ALOAD_V', 0, 'r: a -> ; v: i -> a[i] (int/bool element)'],
  ['ALOAD_F', 0, 'r: a -> ; v: i -> a[i] (float element)'],
  ['ALOAD_R', 0, 'r: a -> a[i] ; v: i ->'],
  ['ASTORE_V', 0, 'r: a -> ; v: i x -> ; a[i] = x'],
  ['ASTORE_F', 0, 'r: a -> ; v: i x -> ; a[i] = x'],
  ['ASTORE_R', 0, 'r: a x -> ; v: i -> ; a[i] = x through the write barrier'],
  ['ALEN', 0, 'r: a -> ; v: -> length of array or string a'],
  ['CHARAT', 0, 'r: s -> ; v: i -> code of s[i]'],
  ['SUBSTR', 0, 'r: s -> new string ; v: a b -> (allocates)'],
  ['CHR', 0, 'v: c -> ; r: -> a one-character string (allocates)'],
  ['CONCAT', 0, 'r: a b -> a+b (both strings, allocates)'],
  ['TOSTR_I', 0, 'v: x -> ; r: -> decimal text of int x (allocates)'],
  ['TOSTR_F', 0, 'v: x -> ; r: -> text of float x (allocates)'],
  ['TOSTR_B', 0, 'v: x -> ; r: -> "true" or "false" (allocates)'],
  ['TOSTR_R', 0, 'r: x -> its print text: the string itself, "null", <C> or <T[] of N> (allocates)'],
  ['CALL', 1, 'calls function k; arguments are the top of both stacks'],
  ['INVOKE', 2, 'calls vtable slot k0 of the receiver; k1 is the statically resolved method, whose parameter counts place the receiver'],
  ['RET', 0, 'returns from a void function'],
  ['RET_V', 0, 'v: x -> ; returns x on the caller\'s value stack'],
  ['RET_R', 0, 'r: x -> ; returns x on the caller\'s reference stack'],
  ['INSTANCEOF', 1, 'r: x -> ; v: -> whether x is a non-null instance of type test k'],
  ['CHECKCAST', 1, 'r: x -> x ; a runtime error unless x is null or an instance of type test k'],
  ['PRINT_I', 0, 'v: x -> ; prints an int'],
  ['PRINT_F', 0, 'v: x -> ; prints a float'],
  ['PRINT_B', 0, 'v: x -> ; prints a bool'],
  ['PRINT_R', 0, 'r: x -> ; prints a string, null, object or array'],
  ['SQRT', 0, 'v: x -> sqrt(x)'],
  ['CLOCK', 0, 'v: -> seconds since the program started'],
  ['GC', 0, 'a full collection now (the interpreter yields to its driver)'],
  ['MINORGC', 0, 'a young collection now'],
  ['ARGS', 1, "r: -> the program's arguments, an array of array type k (made at the first call, allocates)"],
  ['PARSEINT', 0, 'r: s -> ; v: -> s read as a decimal int (a runtime error unless it is one)'],
] as const;

/**
 * Superinstructions, numbered after the table: the linker (vm/link.ts) rewrites the
 * opcode word of the first of two instructions into FIRST_SECOND; the second stays in
 * place, so a jump to it or a frame resumed there still finds it. Operands: the
 * first's, the second's opcode word, the second's.
 */
const pairs = [
  ['RLOAD', 'GETFIELD_R'],
  ['RLOAD', 'GETFIELD_V'],
  ['RLOAD', 'RLOAD'],
  ['VLOAD', 'VLOAD'],
  ['VLOAD', 'ICONST'],
  ['ICONST', 'IADD'],
  ['LT', 'JMPF'],
  ['LE', 'JMPF'],
  ['GE', 'JMPF'],
  ['GT', 'JMPF'],
] as const;

type PairName<P> = P extends readonly [infer A extends string, infer B extends string] ? `${A}_${B}` : never;
export type OpName = (typeof table)[number][0] | PairName<(typeof pairs)[number]>;

const names: string[] = [...table.map(([name]) => name), ...pairs.map(([a, b]) => `${a}_${b}`)];

/** Opcode numbers by name, e.g. `Op.IADD`. */
export const Op = Object.fromEntries(names.map((name, i) => [name, i])) as { readonly [K in OpName]: number };

/** The superinstructions, each with the pair of opcodes it stands for. */
export const SUPERINSTRUCTIONS: readonly (readonly [number, number, number])[] =
  pairs.map(([a, b], k) => [table.length + k, Op[a], Op[b]] as const);

/** Operand count of each opcode, indexed by opcode number. */
export const OPERANDS: readonly number[] = [
  ...table.map(([, n]) => n),
  ...SUPERINSTRUCTIONS.map(([, a, b]) => table[a]![1] + 1 + table[b]![1]),
];
export const OP_NAMES: readonly string[] = names;

/** The first instruction a superinstruction stands for (itself for every other opcode). */
export const FIRST_OF: readonly number[] = OP_NAMES.map((_, op) => SUPERINSTRUCTIONS.find((s) => s[0] === op)?.[1] ?? op);
