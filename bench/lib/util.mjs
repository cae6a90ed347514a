// Small helpers shared by the benchmark sections: processes, statistics, tables.
/**
 * @typedef {object} TimedRun
 * @property {number} code exit status (-1: did not start; 128: killed by a signal)
 * @property {NodeJS.Signals | null} [signal]
 * @property {boolean} [timedOut]
 * @property {boolean} [missing] the command is not installed
 * @property {string} stdout
 * @property {string} stderr
 * @property {number} ms wall clock from spawn to exit
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Progress goes to stderr so that stdout stays plain markdown. */
export function log(msg) {
  process.stderr.write(`[bench] ${msg}\n`);
}

let tmpRoot = null;
/** A scratch directory for this run (JSON stats, sized program copies, Java classes). */
export function scratch() {
  if (!tmpRoot) {
    tmpRoot = mkdtempSync(join(tmpdir(), 'minivm-bench-'));
    process.on('exit', () => {
      try {
        rmSync(tmpRoot, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
    });
  }
  return tmpRoot;
}

/**
 * Runs a command to completion and times it from spawn to exit (wall clock).
 * Never throws: a missing command gives code -1 and `missing: true`.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{ cwd?: string, timeoutMs?: number, env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<TimedRun>}
 */
export function runTimed(cmd, args, { cwd, timeoutMs = 0, env } = {}) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    let child;
    try {
      child = spawn(cmd, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      resolve({ code: -1, missing: true, stdout: '', stderr: String(e), ms: 0 });
      return;
    }
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    let timer = null;
    let timedOut = false;
    if (timeoutMs > 0) {
      timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
    }
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      resolve({ code: -1, missing: /** @type {NodeJS.ErrnoException} */ (e).code === 'ENOENT', stdout: '', stderr: String(e), ms: 0 });
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      resolve({
        code: code ?? (signal ? 128 : -1),
        signal,
        timedOut,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        ms,
      });
    });
  });
}

/** First line of `cmd args` (stdout or stderr), or null when the command is missing. */
export function versionOf(cmd, args = ['--version']) {
  try {
    const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 10000 });
    if (r.error) return null;
    const text = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim();
    return text.split('\n')[0].trim() || null;
  } catch {
    return null;
  }
}

/** Whether a command exists on PATH. */
export function have(cmd) {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 && r.stdout.trim() !== '';
}

/**
 * The program that `cmd` names on the PATH, itself: a version manager's shim (pyenv's
 * `python3` is a shell script that execs the interpreter, about 50 ms a start on the dev
 * machine) would count its own start-up as the peer's. `ask` is how the interpreter
 * names its own executable (CPython: sys.executable); without one, or where it fails,
 * the command stands, and `shim` says whether it is a script rather than a program.
 */
export function peerExecutable(cmd, ask) {
  const found = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim();
  if (!found) return null;
  if (ask) {
    const r = spawnSync(found, ask, { encoding: 'utf8' });
    const exe = r.status === 0 ? r.stdout.trim() : '';
    if (exe && existsSync(exe)) return { path: exe, shim: false };
  }
  let head = '';
  try {
    head = readFileSync(found).subarray(0, 2).toString('latin1');
  } catch {
    // Unreadable: taken as a program.
  }
  return { path: found, shim: head === '#!' };
}

export function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

export function geomean(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x) && x > 0);
  if (v.length === 0) return null;
  return Math.exp(v.reduce((s, x) => s + Math.log(x), 0) / v.length);
}

/** A number with sensible precision, or "-" for missing values. */
export function fmt(x, digits) {
  if (x === null || x === undefined || (typeof x === 'number' && !Number.isFinite(x))) return '-';
  if (typeof x !== 'number') return String(x);
  if (digits !== undefined) return x.toFixed(digits);
  const a = Math.abs(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a === 0) return '0';
  return x.toFixed(3);
}

export function ratio(a, b) {
  if (a === null || b === null || a === undefined || b === undefined || !(b > 0)) return null;
  return a / b;
}

/** "1.23x" or "-". */
export function fx(r, digits = 2) {
  return r === null || r === undefined || !Number.isFinite(r) ? '-' : `${r.toFixed(digits)}x`;
}

export function mib(bytes) {
  return bytes === null || bytes === undefined ? '-' : (bytes / 2 ** 20).toFixed(1);
}

/** A markdown table with padded columns. */
export function table(headers, rows) {
  const cells = [headers, ...rows].map((r) => r.map((c) => (c === null || c === undefined ? '-' : String(c))));
  const widths = headers.map((_, i) => Math.max(3, ...cells.map((r) => (r[i] ?? '').length)));
  // Columns of numbers (or "-", "1.2x", "12%") are right-aligned, the others left-aligned.
  const numeric = headers.map(
    (_, i) => i > 0 && cells.slice(1).every((r) => /^(-|-?[\d.,]+(x|%)?|)$/.test(r[i] ?? '')),
  );
  const line = (r) => `| ${r.map((c, i) => (numeric[i] ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  const sep = `| ${widths.map((w, i) => (numeric[i] ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(cells[0]), sep, ...cells.slice(1).map(line)].join('\n');
}
