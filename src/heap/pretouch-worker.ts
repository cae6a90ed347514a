/** A pre-touch worker (pretouch.ts): touches its slices' pages and exits. */

import { workerData } from 'node:worker_threads';
import { touchPages, type PretouchSlice } from './pretouch-pages.js';

touchPages(workerData as PretouchSlice[]);
