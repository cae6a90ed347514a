#!/usr/bin/env node
// The `minivm` command: runs the compiled CLI (built by `npm install` / `npm run build`).
import '../dist/cli/main.js';
