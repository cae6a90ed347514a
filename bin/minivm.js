#!/usr/bin/env node
// The `minivm` command: runs the compiled CLI (built by `npm install` / `npm run build`).
// CommonJS (bin/package.json), as is the launcher it loads: an ES module entry would
// start Node's ES module loader and the modules it needs (docs/decisions/s58-02-commonjs-launcher.md).
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const launcher = join(__dirname, '..', 'dist', 'cli', 'main.cjs');
if (existsSync(launcher)) require(launcher);
else import('../dist/cli/main.js');
