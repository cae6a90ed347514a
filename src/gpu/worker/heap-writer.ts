/**
 * A heap writer thread (heap-writers.ts), loaded as a file from dist/: it writes
 * each staged block it is sent into its destinations, hands the buffer back on
 * its port, and counts the block done.
 */

import { workerData } from 'node:worker_threads';
import { copyWordsInto } from '../../heap/native-copy.js';
import { DONE, FAILED, type WriterBlock, type WriterReply, type WriterStart } from './heap-writers.js';

const { id, port, ctl } = workerData as WriterStart;

port.on('message', (block: WriterBlock) => {
  let reply: WriterReply;
  try {
    const src = new Uint32Array(block.buf);
    const dsts = block.dsts.map((b) => new Uint32Array(b));
    const segs = block.segs;
    for (let i = 0; i < segs.length; i += 4) {
      const from = segs[i + 3]!;
      copyWordsInto(dsts[segs[i]!]!, segs[i + 1]!, src, from, segs[i + 2]!);
    }
    reply = { buf: block.buf };
  } catch (e) {
    Atomics.compareExchange(ctl, FAILED, 0, id + 1);
    reply = { error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
  }
  port.postMessage(reply, 'buf' in reply ? [reply.buf] : []);
  Atomics.add(ctl, DONE, 1);
  Atomics.notify(ctl, DONE);
});
