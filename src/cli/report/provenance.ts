/**
 * The provenance table at the foot of every report: what ran, where and when, so
 * that a figure in it can be traced and rerun.
 */

import { formatBytes } from '../../heap/telemetry.js';
import type { Provenance } from '../provenance.js';
import { htmlTable } from './html.js';

/** `heap` overrides the heap line (a sweep lists its sizes); `extra` rows go after the mode. */
export function provenanceTable(p: Provenance, heap: string, extra: string[][] = []): string {
  return htmlTable(['what', 'value'], [
    ['minivm', `${p.version}${p.commit ? ` (${p.commit})` : ''}`], ['command', `minivm ${p.argv.join(' ')}`], ['mode', p.mode],
    ...extra, ['heap', heap], ['node', p.node], ['os', p.os],
    ['cpu', `${p.cpu}, ${p.cores} cores`], ['memory', `${formatBytes(p.memoryBytes)} (${p.memoryBytes} bytes)`],
    ['GPU adapter', p.adapter ?? '-'], ['date', p.date],
  ], 2, 'provenance');
}
