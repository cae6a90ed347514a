// The machine a run was taken on: CPU, cores, memory, tool versions, GPU adapter.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { BUILD_INFO, checkoutCommit } from '../../scripts/build-commit.mjs';
import { versionOf } from './util.mjs';

export function cpuModel() {
  try {
    const text = readFileSync('/proc/cpuinfo', 'utf8');
    const m = text.match(/^model name\s*:\s*(.+)$/m);
    if (m) return m[1].trim();
  } catch {
    /* not Linux */
  }
  return os.cpus()[0]?.model ?? 'unknown';
}

export function loadAverage() {
  return os.loadavg().map((x) => x.toFixed(2)).join(', ');
}

/** Everything but the GPU (which the gc section probes only when it needs to). */
export function machineInfo(root) {
  const java = versionOf('java', ['-version']);
  return {
    cpu: cpuModel(),
    cores: os.cpus().length,
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    python: versionOf('python3', ['--version']),
    lua: (versionOf('lua5.4', ['-v']) ?? versionOf('lua', ['-v']))?.replace(/\s+Copyright.*$/, '') ?? null,
    java,
    loadAverage: loadAverage(),
    commit: gitCommit(root),
  };
}

/** The commit of the build the bench measures (dist/build-info.json, which
 *  scripts/bundle.mjs writes), else the checkout's. */
export function gitCommit(root = process.cwd()) {
  try {
    const info = JSON.parse(readFileSync(join(root, 'dist', BUILD_INFO), 'utf8'));
    if (typeof info.commit === 'string') return info.commit;
  } catch {
    // No build, or one made outside a clone: the checkout says.
  }
  return checkoutCommit(root);
}

/**
 * One line of provenance for a table of bench/RESULTS.md: the commit, the machine
 * (and GPU adapter, when one was used), the date, and the command that measures it again.
 * @param {ReturnType<typeof machineInfo>} m
 * @param {string | null} gpu the adapter the figures used, or null
 * @param {Date} date
 * @param {string} command
 */
export function provenance(m, gpu, date, command) {
  const cpu = `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, node ${m.node}`;
  return (
    `Commit ${m.commit ?? 'unknown'}; ${cpu}${gpu ? `; GPU ${gpu}` : ''}; ${date.toISOString().slice(0, 10)}. ` +
    `Command: \`${command}\`.`
  );
}

export function formatMachine(m, gpu) {
  const lines = [
    `- CPU: ${m.cpu}, ${m.cores} cores; memory ${m.memoryGiB} GiB; ${m.os}`,
    `- node ${m.node}; ${m.python ?? 'python3: not installed'}; ${m.lua ?? 'lua: not installed'}; ${m.java ?? 'java: not installed'}`,
    `- load average at start: ${m.loadAverage}; minivm commit ${m.commit ?? 'unknown'}`,
  ];
  if (gpu) lines.push(`- GPU: ${gpu}`);
  return lines.join('\n');
}
