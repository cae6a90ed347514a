/**
 * Text conversions of values, shared by `print` and string concatenation, and the
 * runtime error type with its stack trace.
 */

/** A float as the shortest text that reads back to it, with `.0` when it would look like an int. */
export function formatFloat(x: number): string {
  const s = String(x);
  return /^-?\d+$/.test(s) ? s + '.0' : s;
}

export interface StackFrameInfo {
  readonly name: string;
  readonly line: number;
}

/** A fault of the running program: printed as `runtime error: ...` plus its stack, exit 70. */
export class MiniRuntimeError extends Error {
  frames: StackFrameInfo[] = [];
  constructor(message: string) {
    super(message);
    this.name = 'MiniRuntimeError';
  }

  format(file: string): string {
    const lines = [`runtime error: ${this.message}`];
    for (const f of this.frames) lines.push(f.line > 0 ? `  at ${f.name} (${file}:${f.line})` : `  ${f.name}`);
    return lines.join('\n');
  }
}
